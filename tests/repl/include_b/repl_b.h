// Found through :include-path (tests/repl/include_test.py).
#define REPL_B_VALUE 7
