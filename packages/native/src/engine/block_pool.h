// Recycled memory for the objects every request allocates and frees (its TensorEntry, the
// binding's per-call Job). A training step submits hundreds of them at once and frees them
// together; glibc keeps only a few freed blocks of one size per thread at hand and sorts the
// rest back into its bins, which costs more than the engine's own work on a small tensor.
#pragma once

#include <cstddef>
#include <mutex>
#include <new>
#include <vector>

namespace kolo {

// Blocks of `Size` bytes: freed ones are kept (up to kKeep) for the next allocation, on any
// thread. Never destroyed, so a block freed during process exit still has somewhere to go.
template <size_t Size>
class BlockPool {
 public:
  static constexpr size_t kKeep = 4096;

  static void* Allocate() {
    BlockPool& pool = Instance();
    {
      std::lock_guard<std::mutex> lock(pool.mu_);
      if (!pool.free_.empty()) {
        void* block = pool.free_.back();
        pool.free_.pop_back();
        return block;
      }
    }
    return ::operator new(Size);
  }

  static void Release(void* block) noexcept {
    BlockPool& pool = Instance();
    {
      std::lock_guard<std::mutex> lock(pool.mu_);
      if (pool.free_.size() < kKeep) {
        pool.free_.push_back(block);
        return;
      }
    }
    ::operator delete(block);
  }

  // Blocks kept for reuse now (tests).
  static size_t Kept() {
    BlockPool& pool = Instance();
    std::lock_guard<std::mutex> lock(pool.mu_);
    return pool.free_.size();
  }

 private:
  BlockPool() { free_.reserve(kKeep); }
  static BlockPool& Instance() {
    static BlockPool* pool = new BlockPool();  // intentionally never freed
    return *pool;
  }

  std::mutex mu_;
  std::vector<void*> free_;
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
