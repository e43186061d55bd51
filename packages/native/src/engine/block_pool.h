// Recycled memory for the objects every request allocates and frees (its TensorEntry, the
// binding's per-call Job). A training step submits hundreds of them at once and frees them
// together; glibc keeps only a few freed blocks of one size per thread at hand and sorts the
// rest back into its bins, which costs more than the engine's own work on a small tensor.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <vector>

namespace kolo {

// Blocks of `Size` bytes: each thread keeps up to kKeep freed blocks for its next allocations,
// without a lock (a block freed on another thread joins that thread's blocks). A thread's
// blocks go back to the heap when it exits; blocks freed after that go straight to the heap.
template <size_t Size>
class BlockPool {
 public:
  static constexpr size_t kKeep = 4096;

  static void* Allocate() {
    std::vector<void*>* kept = Kept();
    if (kept != nullptr && !kept->empty()) {
      void* block = kept->back();
      kept->pop_back();
      return block;
    }
    return ::operator new(Size);
  }

  static void Release(void* block) noexcept {
    std::vector<void*>* kept = Kept();
    if (kept != nullptr && kept->size() < kKeep) {
      kept->push_back(block);  // within the reserved capacity: never allocates
      return;
    }
    ::operator delete(block);
  }

  // Blocks this thread keeps for reuse now (tests).
  static size_t KeptHere() {
    std::vector<void*>* kept = Kept();
    return kept == nullptr ? 0 : kept->size();
  }

 private:
  struct Reaper {
    ~Reaper() {
      if (kept_ != nullptr) {
        for (void* block : *kept_) ::operator delete(block);
        delete kept_;
        kept_ = nullptr;
      }
      exited_ = true;
    }
  };

  // This thread's kept blocks; null while it exits (or when there is no memory for the list).
  static std::vector<void*>* Kept() noexcept {
    if (kept_ == nullptr && !exited_) {
      try {
        auto list = std::make_unique<std::vector<void*>>();
        list->reserve(kKeep);
        kept_ = list.release();
        (void)&reaper_;  // constructs the reaper, which frees the list at this thread's exit
      } catch (const std::bad_alloc&) {
        return nullptr;
      }
    }
    return kept_;
  }

  // Plain pointers and flags stay readable while thread-locals with destructors are destroyed.
  static inline thread_local std::vector<void*>* kept_ = nullptr;
  static inline thread_local bool exited_ = false;
  static inline thread_local Reaper reaper_;
};

// An allocator over BlockPool for single objects (std::allocate_shared allocates one block of
// the object and its control block); arrays go to the global heap.
template <typename T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <typename U>
  PoolAllocator(const PoolAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor)
  T* allocate(size_t n) {
    if (n == 1) return static_cast<T*>(BlockPool<sizeof(T)>::Allocate());
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept {
    if (n == 1) {
      BlockPool<sizeof(T)>::Release(p);
    } else {
      ::operator delete(p);
    }
  }
  template <typename U>
  bool operator==(const PoolAllocator<U>&) const noexcept { return true; }
  template <typename U>
  bool operator!=(const PoolAllocator<U>&) const noexcept { return false; }
};

}  // namespace kolo
