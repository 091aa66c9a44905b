#pragma once
// A move-only callable stored inline (never on the heap), so scheduling an event does not allocate.
// A callable larger than Capacity bytes is a compile error: capture a pointer to bigger state instead.
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace hpcsim {

template <class Signature, std::size_t Capacity = 48>
class InlineFunction;

template <class R, class... Args, std::size_t Capacity>
class InlineFunction<R(Args...), Capacity> {
 public:
  InlineFunction() = default;

  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, InlineFunction>>>
  InlineFunction(F&& f) {  // NOLINT(google-explicit-constructor): callables convert implicitly
    using Fn = std::decay_t<F>;
    static_assert(sizeof(Fn) <= Capacity, "callable too large for InlineFunction: capture less");
    static_assert(alignof(Fn) <= alignof(std::max_align_t), "over-aligned callable");
    static_assert(std::is_nothrow_move_constructible_v<Fn>, "callable must be nothrow movable");
    ::new (static_cast<void*>(buf_)) Fn(std::forward<F>(f));
    ops_ = &ops_for<Fn>;
  }

  InlineFunction(InlineFunction&& o) noexcept { move_from(o); }
  InlineFunction& operator=(InlineFunction&& o) noexcept {
    if (this != &o) {
      reset();
      move_from(o);
    }
    return *this;
  }
  InlineFunction(const InlineFunction&) = delete;
  InlineFunction& operator=(const InlineFunction&) = delete;
  ~InlineFunction() { reset(); }

  explicit operator bool() const { return ops_ != nullptr; }
  R operator()(Args... args) { return ops_->call(buf_, std::forward<Args>(args)...); }

  void reset() {
    if (ops_) {
      ops_->destroy(buf_);
      ops_ = nullptr;
    }
  }

 private:
  struct Ops {
    R (*call)(void*, Args&&...);
    void (*move)(void* dst, void* src);
    void (*destroy)(void*);
  };
  template <class Fn>
  static constexpr Ops ops_for = {
      [](void* p, Args&&... a) -> R { return (*static_cast<Fn*>(p))(std::forward<Args>(a)...); },
      [](void* dst, void* src) {
        ::new (dst) Fn(std::move(*static_cast<Fn*>(src)));
        static_cast<Fn*>(src)->~Fn();
      },
      [](void* p) { static_cast<Fn*>(p)->~Fn(); }};

  void move_from(InlineFunction& o) {
    if (o.ops_) {
      o.ops_->move(buf_, o.buf_);
      ops_ = o.ops_;
      o.ops_ = nullptr;
    }
  }

  alignas(std::max_align_t) unsigned char buf_[Capacity];
  const Ops* ops_ = nullptr;
};

}  // namespace hpcsim
