// The active flows crossing one resource of the Simulator: a small vector of 32-bit flow ids whose first four entries
// live inside the resource's record, so reading a link that carries a few flows (most links: a ring step, a tree
// edge, the steps of one connection overlapping) costs no pointer chase. Longer lists move to the heap and stay there.
// Written by hand because std::vector has no inline storage and Boost's small_vector keeps a 64-bit size and
// capacity (32 bytes for four ids, here 24), which would not leave the resource record within one 64-byte line.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace vgsim {

class FlowList {
 public:
  using value_type = std::uint32_t;
  static constexpr std::uint32_t kInline = 4;

  FlowList() = default;
  FlowList(const FlowList&) = delete;
  FlowList& operator=(const FlowList&) = delete;
  FlowList(FlowList&& o) noexcept : size_(o.size_), cap_(o.cap_) {
    if (o.on_heap()) {
      heap_ = o.heap_;
      o.cap_ = kInline;
      o.size_ = 0;
    } else {
      std::memcpy(inline_, o.inline_, sizeof inline_);
    }
  }
  FlowList& operator=(FlowList&&) = delete;
  ~FlowList() {
    if (on_heap()) std::free(heap_);
  }

  std::uint32_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  value_type* data() { return on_heap() ? heap_ : inline_; }
  const value_type* data() const { return on_heap() ? heap_ : inline_; }
  value_type* begin() { return data(); }
  value_type* end() { return data() + size_; }
  const value_type* begin() const { return data(); }
  const value_type* end() const { return data() + size_; }
  value_type operator[](std::uint32_t i) const { return data()[i]; }
  value_type back() const { return data()[size_ - 1]; }

  void push_back(value_type v) {
    if (size_ == cap_) grow();
    data()[size_++] = v;
  }
  void pop_back() { --size_; }

 private:
  bool on_heap() const { return cap_ > kInline; }
  void grow() {
    const std::uint32_t cap = cap_ * 2;
    auto* p = static_cast<value_type*>(std::malloc(sizeof(value_type) * cap));
    if (!p) throw std::bad_alloc();
    std::memcpy(p, data(), sizeof(value_type) * size_);
    if (on_heap()) std::free(heap_);
    heap_ = p;
    cap_ = cap;
  }

  std::uint32_t size_ = 0;
  std::uint32_t cap_ = kInline;
  union {
    value_type inline_[kInline];
    value_type* heap_;
  };
};

}  // namespace vgsim
