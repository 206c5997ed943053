/* Driver of the DSDL C round-trip tests.
 *
 *   harness list          one line per type: index, C name, sizeof, buffer size, extent
 *   harness run CASES     runs each case of the file CASES and prints one line per case
 *
 * A case is four little-endian uint32 (type index, operation, output capacity, input length)
 * and the input bytes.  Operation 0 deserializes the input and serializes the object back;
 * operation 1 initializes the object and serializes it; operation 2 passes NULL for each pointer
 * in turn (and prints the four results).  Every buffer ends where its size says
 * (an empty input is passed as NULL) and the object is filled with 0xA5 first, so that
 * AddressSanitizer sees any access past a buffer and UndefinedBehaviorSanitizer any field left
 * unset.  Every other case puts both buffers at an odd address: the API promises no alignment.  Printed per case: deserialize result, bytes consumed, serialize result, bytes
 * written and those bytes in hex ("-" when not run).
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct harness_type* type_at(size_t index)
{
    for (size_t p = 0; p < harness_part_count; p++)
    {
        if (index < harness_parts[p].count)
        {
            return &harness_parts[p].types[index];
        }
        index -= harness_parts[p].count;
    }
    return NULL;
}

static int read_u32(FILE* f, uint32_t* out)
{
    uint8_t b[4];
    if (fread(b, 1, 4, f) != 4)
    {
        return 0;
    }
    *out = (uint32_t) b[0] | ((uint32_t) b[1] << 8U) | ((uint32_t) b[2] << 16U) | ((uint32_t) b[3] << 24U);
    return 1;
}

static int list_types(void)
{
    size_t index = 0;
    for (const struct harness_type* t = type_at(0); t != NULL; t = type_at(++index))
    {
        printf("%zu %s %zu %zu %zu\n", index, t->name, t->object_size, t->buffer_size, t->extent);
    }
    return 0;
}

/* The end of an object's life (a C++ object's destructor first). */
static void finish(const struct harness_type* t, void* obj)
{
    if (t->destroy != NULL)
    {
        t->destroy(obj);
    }
    free(obj);
}

static int run_case(const struct harness_type* t,
                    uint32_t op,
                    uint32_t capacity,
                    const uint8_t* input,
                    size_t in_len,
                    size_t shift)
{
    void* obj = malloc(t->object_size);
    if (obj == NULL)
    {
        return 1;
    }
    memset(obj, 0xA5, t->object_size);
    if (t->construct != NULL)
    {
        t->construct(obj);
    }
    if (op == 2)
    {
        uint8_t byte = 0;
        size_t size = 1;
        const int a = t->serialize(NULL, &byte, &size);
        size = 1;
        const int b = t->serialize(obj, NULL, &size);
        size = 1;
        const int c = t->deserialize(NULL, &byte, &size);
        size = 1;
        const int d = t->deserialize(obj, NULL, &size);
        printf("%d %d %d %d -\n", a, b, c, d);
        fflush(stdout);
        finish(t, obj);
        return 0;
    }
    int8_t des = 0;
    size_t consumed = in_len;
    if (op == 0)
    {
        des = t->deserialize(obj, input, &consumed);
    }
    else
    {
        t->initialize(obj);
        consumed = 0;
    }
    printf("%d %zu ", (int) des, consumed);
    if (des < 0)
    {
        printf("- - -\n");
        fflush(stdout);
        finish(t, obj);
        return 0;
    }
    /* The buffer ends where the block ends; a zero capacity still gets a valid pointer. */
    uint8_t* const block = malloc((capacity + shift > 0) ? (capacity + shift) : 1U);
    if (block == NULL)
    {
        finish(t, obj);
        return 1;
    }
    uint8_t* const out = block + shift;
    size_t written = capacity;
    const int8_t ser = t->serialize(obj, out, &written);
    if (ser < 0)
    {
        printf("%d - -\n", (int) ser);
    }
    else
    {
        printf("%d %zu ", (int) ser, written);
        for (size_t i = 0; i < written && i < capacity; i++)
        {
            printf("%02x", out[i]);
        }
        printf("%s\n", written > 0 ? "" : "-");
    }
    fflush(stdout); /* what ran before a sanitizer report is known */
    free(block);
    finish(t, obj);
    return 0;
}

static int run_cases(const char* path)
{
    FILE* f = fopen(path, "rb");
    if (f == NULL)
    {
        perror(path);
        return 1;
    }
    uint32_t index = 0;
    uint32_t op = 0;
    uint32_t capacity = 0;
    uint32_t in_len = 0;
    int status = 0;
    size_t number = 0;
    while (status == 0 && read_u32(f, &index))
    {
        const struct harness_type* t = type_at(index);
        if (!read_u32(f, &op) || !read_u32(f, &capacity) || !read_u32(f, &in_len) || t == NULL)
        {
            fprintf(stderr, "bad case file\n");
            status = 1;
            break;
        }
        const size_t shift = number++ % 2U;
        uint8_t* const block = (in_len > 0) ? malloc(in_len + shift) : NULL;
        uint8_t* const input = (block != NULL) ? (block + shift) : NULL;
        if ((in_len > 0) && ((input == NULL) || (fread(input, 1, in_len, f) != in_len)))
        {
            fprintf(stderr, "bad case file\n");
            status = 1;
        }
        else
        {
            status = run_case(t, op, capacity, input, in_len, shift);
        }
        free(block);
    }
    fclose(f);
    return status;
}

int main(int argc, char** argv)
{
    if ((argc == 2) && (strcmp(argv[1], "list") == 0))
    {
        return list_types();
    }
    if ((argc == 3) && (strcmp(argv[1], "run") == 0))
    {
        return run_cases(argv[2]);
    }
    fprintf(stderr, "usage: %s list | run CASES\n", argv[0]);
    return 2;
}
