# Read by CTest after the discovered GoogleTest cases are added: the whole
# ResNet-18 on sidra-y1 runs in about a minute in the release build but over
# five unoptimised under the sanitizers, so it is labelled slow like the other
# whole-model tests (scripts/test.sh runs it in the release pass only).
set_tests_properties([=[EndToEnd.ResNet18OnSidraY1]=] PROPERTIES LABELS slow)
