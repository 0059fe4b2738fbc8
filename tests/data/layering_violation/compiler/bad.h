// Fixture for check.layering_detects_violation: the compiler may not include the table layer.
#include "table/table.h"
