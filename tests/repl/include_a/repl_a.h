// Found through kern repl -I (tests/repl/include_test.py).
#define REPL_A_VALUE 40
