#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "engine/block_pool.h"

namespace kolo {
namespace {

// A size no other code in the test binary pools, so the counts are this test's own.
using Pool = BlockPool<72>;

TEST(BlockPool, ReusesFreedBlocksOnTheThreadThatFreedThem) {
  const size_t before = Pool::KeptHere();
  void* a = Pool::Allocate();
  void* b = Pool::Allocate();
  Pool::Release(a);
  Pool::Release(b);
  EXPECT_EQ(Pool::KeptHere(), before + 2);
  // Last freed, first reused.
  EXPECT_EQ(Pool::Allocate(), b);
  EXPECT_EQ(Pool::Allocate(), a);
  EXPECT_EQ(Pool::KeptHere(), before);
  // A block freed on another thread is kept there, not here.
  void* c = Pool::Allocate();
  size_t kept_there = 0;
  std::thread([&] {
    Pool::Release(c);
    kept_there = Pool::KeptHere();
  }).join();
  EXPECT_EQ(kept_there, 1u);
  EXPECT_EQ(Pool::KeptHere(), before);
  Pool::Release(a);
  Pool::Release(b);
}

TEST(BlockPool, KeepsAtMostKKeepBlocksAndFreesTheRest) {
  std::thread([] {
    std::vector<void*> blocks;
    for (size_t i = 0; i < Pool::kKeep + 10; ++i) blocks.push_back(Pool::Allocate());
    for (void* b : blocks) Pool::Release(b);
    EXPECT_EQ(Pool::KeptHere(), Pool::kKeep);
  }).join();
}

TEST(BlockPool, AllocatorPoolsSingleObjectsOnly) {
  using Alloc = PoolAllocator<double>;
  Alloc alloc;
  const size_t before = BlockPool<sizeof(double)>::KeptHere();
  double* one = alloc.allocate(1);
  double* many = alloc.allocate(3);
  alloc.deallocate(many, 3);  // to the heap
  EXPECT_EQ(BlockPool<sizeof(double)>::KeptHere(), before);
  alloc.deallocate(one, 1);
  EXPECT_EQ(BlockPool<sizeof(double)>::KeptHere(), before + 1);
  EXPECT_EQ(alloc.allocate(1), one);
  alloc.deallocate(one, 1);
}

}  // namespace
}  // namespace kolo
