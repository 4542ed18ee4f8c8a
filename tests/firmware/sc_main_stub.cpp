// libsystemc refers to sc_main; test executables bring their own main
// (GoogleTest's) and build the chip inside each test, so this is never run.
extern "C" int sc_main(int, char**) { return 0; }
