/* The DSDL C round-trip harness: what the generated type tables give the driver (harness.c). */
#ifndef WIREPLAN_TEST_HARNESS_H
#define WIREPLAN_TEST_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One generated type: its C name, macros and functions behind type-erased wrappers
   (construct / destroy: a C++ object's lifetime in the driver's memory; NULL in C). */
struct harness_type
{
    const char* name;
    size_t object_size;
    size_t buffer_size;  /* T_SERIALIZATION_BUFFER_SIZE_BYTES_ */
    size_t extent;       /* T_EXTENT_BYTES_ */
    int8_t (*serialize)(const void* obj, uint8_t* buffer, size_t* inout_size);
    int8_t (*deserialize)(void* obj, const uint8_t* buffer, size_t* inout_size);
    void (*initialize)(void* obj);
    void (*construct)(void* obj);
    void (*destroy)(void* obj);
};

/* A generated part (one translation unit) of the type table. */
struct harness_part
{
    const struct harness_type* types;
    size_t count;
};

extern const struct harness_part harness_parts[];
extern const size_t harness_part_count;

#ifdef __cplusplus
}
#endif

#endif
