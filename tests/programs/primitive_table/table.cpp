#include "table.h"

const Primitive primitives[] = {
    {1, 1, 0, {1, 0, 0, 0}}, {2, 2, 1, {1, 3, 0, 0}}, {3, 3, 1, {1, 3, 1, 0}},
    {4, 3, 2, {1, 1, 1, 0}}, {5, 4, 1, {1, 1, 3, 3}}, {6, 4, 4, {1, 3, 5, 13}},
};
const int primitiveCount = sizeof(primitives) / sizeof(primitives[0]);
