// wireplan_evalue_executorch.hpp: values read by wireplan_evalue.hpp as ExecuTorch's own
// EValue and TensorPtr (executorch::runtime::EValue, executorch::extension::make_tensor_ptr).
//
// Include it only where ExecuTorch's headers are (its wheel's include/ folder, with the
// include/executorch/runtime/core/portable_type/c10 folder and the definitions its CMake
// package exports, C10_USING_CUSTOM_GENERATED_MACROS); link libexecutorch.  Tested against
// executorch 1.5.1.  ExecuTorch tensors hold native-order elements: one-byte types (and every
// type on a big-endian host) become views of the buffer, which must then outlive them; the
// others are copied once, byte-swapped, into memory the TensorPtr owns.
#ifndef WIREPLAN_EVALUE_EXECUTORCH_HPP
#define WIREPLAN_EVALUE_EXECUTORCH_HPP

#include <cstdint>
#include <utility>
#include <vector>

#include <executorch/extension/tensor/tensor_ptr.h>
#include <executorch/runtime/core/evalue.h>

#include "wireplan_evalue.hpp"

namespace wireplan {
namespace evalue {
namespace et {

// The codes are ExecuTorch's own (scalar_type.h): the cast keeps the value.
inline ::executorch::aten::ScalarType scalar_type(const Tensor& t) noexcept {
  return static_cast<::executorch::aten::ScalarType>(t.scalar_type);
}

inline ::executorch::extension::TensorPtr to_tensor_ptr(const Tensor& t) {
  std::vector<::executorch::aten::SizesType> sizes(t.rank);
  for (unsigned k = 0; k < t.rank; ++k) sizes[k] = t.size(k);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  constexpr bool native = true;
#else
  constexpr bool native = false;
#endif
  if (native || t.itemsize() == 1) {
    // ExecuTorch takes a mutable pointer; a program that writes its inputs writes the buffer.
    void* data = const_cast<std::uint8_t*>(t.data);
    return ::executorch::extension::make_tensor_ptr(std::move(sizes), data, scalar_type(t));
  }
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(t.nbytes));
  t.copy_native(bytes.data());
  return ::executorch::extension::make_tensor_ptr(std::move(sizes), std::move(bytes), {}, {},
                                                  scalar_type(t));
}

// An ExecuTorch EValue of a decoded value, with what it points to: a String's bytes stay in
// the buffer (ExecuTorch's String EValue is a view too), a tensor is to_tensor_ptr's.
class EValueOf {
 public:
  explicit EValueOf(const Value& v) {
    switch (v.tag) {
      case Tag::None: break;
      case Tag::Int: value_ = ::executorch::runtime::EValue(v.i); break;
      case Tag::Double: value_ = ::executorch::runtime::EValue(v.d); break;
      case Tag::Bool: value_ = ::executorch::runtime::EValue(v.b); break;
      case Tag::String:
        chars_ = ::executorch::aten::ArrayRef<char>(v.str.data(), v.str.size());
        value_ = ::executorch::runtime::EValue(&chars_);
        break;
      case Tag::Tensor:
        tensor_ = to_tensor_ptr(v.tensor);
        value_ = ::executorch::runtime::EValue(*tensor_);
        break;
    }
  }
  EValueOf(const EValueOf&) = delete;
  EValueOf& operator=(const EValueOf&) = delete;

  const ::executorch::runtime::EValue& get() const noexcept { return value_; }
  ::executorch::runtime::EValue& get() noexcept { return value_; }

 private:
  ::executorch::extension::TensorPtr tensor_;
  ::executorch::aten::ArrayRef<char> chars_;
  ::executorch::runtime::EValue value_;
};

}  // namespace et
}  // namespace evalue
}  // namespace wireplan

#endif  // WIREPLAN_EVALUE_EXECUTORCH_HPP
