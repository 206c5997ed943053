/*
 * For code written against nunavut's C output: nunavut puts its support code in
 * nunavut/support/serialization.h, and application code includes that file for its macros
 * (NUNAVUT_SUCCESS, the NUNAVUT_ERROR_ codes, the NUNAVUT_SUPPORT_LANGUAGE_OPTION_ flags).
 * In wireplan's output this file stands in for it: it includes wireplan's support header,
 * which defines the same error codes, and states the options wireplan's headers are built
 * with.  nunavut's helper functions (nunavutGetU8, nunavutCopyBits, nunavutFloat16Pack, ...)
 * are nunavut's own and are not provided; generated code never needs them.
 * Copied unchanged into every output folder of wireplan's C backend (see docs/dsdl-c.md).
 */
#ifndef NUNAVUT_SUPPORT_SERIALIZATION_H_INCLUDED
#define NUNAVUT_SUPPORT_SERIALIZATION_H_INCLUDED

#include <wireplan/dsdl/support.h>

/* Serialization is never omitted, float serialization neither; no asserts in the
   generated code; array capacities are those of the DSDL definitions (not overridable). */
#define NUNAVUT_SUPPORT_LANGUAGE_OPTION_OMIT_SERIALIZATION_SUPPORT 0
#define NUNAVUT_SUPPORT_LANGUAGE_OPTION_OMIT_FLOAT_SERIALIZATION_SUPPORT 0
#define NUNAVUT_SUPPORT_LANGUAGE_OPTION_ENABLE_SERIALIZATION_ASSERTS 0
#define NUNAVUT_SUPPORT_LANGUAGE_OPTION_ENABLE_OVERRIDE_VARIABLE_ARRAY_CAPACITY 0

#endif /* NUNAVUT_SUPPORT_SERIALIZATION_H_INCLUDED */
