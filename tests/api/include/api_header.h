// Found only through kern_options.include_paths (tests/api/c_includes_test.c).
#define API_HEADER_VALUE 4
