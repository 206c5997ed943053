// A stand-in for CETL's cetl/pf17/cetlpf.hpp, which nunavut's C++ output includes for its
// unions, so that the tests can build nunavut's headers without fetching CETL.  Under C++17
// CETL's polyfill names the standard library's types, which is all this file does (for the
// names nunavut's generated code and the tests use, among them nunavut's C++ verification
// suite's test_unionant*.cpp, which include it themselves); under C++14 it defines the one
// name nunavut's c++14 output takes from CETL.  wireplan's output does not include it.
#ifndef WIREPLAN_TEST_CETL_SHIM_HPP
#define WIREPLAN_TEST_CETL_SHIM_HPP

#if __cplusplus < 201703L
// C++14: nunavut's c++14 output (its own variant) needs only the in-place tag.
#    include <cstddef>
namespace cetl
{
template <std::size_t I>
struct in_place_index_t
{
    explicit in_place_index_t() = default;
};
}  // namespace cetl
#else
#    include <memory_resource>
#    include <variant>

namespace cetl
{
using std::get;
using std::get_if;
using std::holds_alternative;
using std::in_place_index_t;
using std::monostate;
using std::variant;
using std::variant_alternative;
using std::variant_alternative_t;
using std::variant_npos;
using std::variant_size;
using std::visit;
namespace pmr
{
using std::pmr::get_default_resource;
using std::pmr::polymorphic_allocator;
}  // namespace pmr
}  // namespace cetl
#endif

#endif
