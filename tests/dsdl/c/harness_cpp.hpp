// The C++ side of the DSDL round-trip harness: nunavut's C++ API (serialize / deserialize
// on bitspans, SerializeResult) behind the driver's type-erased C functions.  Written against
// nunavut 3.1's C++ output; the same source builds against wireplan's C++ headers.
#ifndef WIREPLAN_TEST_HARNESS_CPP_HPP
#define WIREPLAN_TEST_HARNESS_CPP_HPP

#include "harness.h"

#include <cstddef>
#include <cstdint>
#include <new>

#if defined(HARNESS_CETL)
// --language-standard cetl++14-17: CETL's allocator has no default, so every object is made
// with one (nunavut's allocator constructor).
#    include "cetl/pf17/sys/memory_resource.hpp"
#    define HARNESS_ARGS cetl::pf17::pmr::polymorphic_allocator<void>{cetl::pf17::pmr::new_delete_resource()}
#else
#    define HARNESS_ARGS
#endif

namespace harness
{
constexpr std::int8_t invalid_argument = -2;  // NUNAVUT_ERROR_INVALID_ARGUMENT: a null pointer

template <typename T>
std::int8_t ser(const void* obj, std::uint8_t* buffer, std::size_t* size)
{
    if ((obj == nullptr) || (buffer == nullptr) || (size == nullptr))
    {
        return invalid_argument;  // references in C++: the API cannot be given a null object
    }
    const auto result = serialize(*static_cast<const T*>(obj), nunavut::support::bitspan{buffer, *size});
    if (!result.has_value())
    {
        return static_cast<std::int8_t>(-static_cast<int>(result.error()));
    }
    *size = result.value();
    return 0;
}

template <typename T>
std::int8_t des(void* obj, const std::uint8_t* buffer, std::size_t* size)
{
    if ((obj == nullptr) || (size == nullptr) || ((buffer == nullptr) && (*size != 0U)))
    {
        return invalid_argument;
    }
    const auto result = deserialize(*static_cast<T*>(obj), nunavut::support::const_bitspan{buffer, *size});
    if (!result.has_value())
    {
        return static_cast<std::int8_t>(-static_cast<int>(result.error()));
    }
    *size = result.value();
    return 0;
}

template <typename T>
void init(void* obj)
{
    *static_cast<T*>(obj) = T{HARNESS_ARGS};
}

template <typename T>
void construct(void* obj)
{
    new (obj) T(HARNESS_ARGS);
}

template <typename T>
void destroy(void* obj)
{
    static_cast<T*>(obj)->~T();
}
}  // namespace harness

#endif
