// libsystemc refers to sc_main; the SystemC model tests bring their own main
// (GoogleTest's) and elaborate inside each test, so this is never run.
extern "C" int sc_main(int, char**) { return 0; }
