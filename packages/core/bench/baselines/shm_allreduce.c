/* Floor: the least a shared-memory allreduce (float32 sum) costs on this machine, with no
 * library, negotiation or language runtime around it. `shm_allreduce N MIN MAX [yield]` forks N
 * ranks over one shared mapping; each call, every rank copies its input into its own slot (two
 * slots a rank, alternating, so a slot is rewritten only once every peer has finished reading
 * it), raises its flag, waits for every peer's flag (spinning, or yielding where there are more
 * ranks than CPUs or `yield` asks to), then sums all slots in rank order into its output. Ranks
 * are bound to a CPU each, as Open MPI binds two ranks by default. Every rank reads every slot,
 * so above a few hundred KiB this is not the floor of a reduce-scatter. Timed as the other
 * baselines (warm-up, a barrier, then the median of per-call times on rank 0); prints one JSON
 * line per size, the sizes growing by 4x: BENCH {"bytes":..,"us":..,"wrong":..}, `wrong`
 * counting rank 0's wrong sums: of every call's first element (which differs from call to call)
 * and of the last call's others. Built and run by
 * packages/core/bench/drivers/floor.mjs. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#define CPU_RELAX() __builtin_ia32_pause()
#else
#define CPU_RELAX() ((void)0)
#endif

typedef struct {
  _Alignas(64) atomic_uint flag; /* the number of calls this rank has published */
  char pad[60];
} Flag;

static int by_value(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

int main(int argc, char** argv) {
  const int size = argc > 1 ? atoi(argv[1]) : 2;
  const long min_bytes = argc > 2 ? atol(argv[2]) : 4096;
  const long max_bytes = argc > 3 ? atol(argv[3]) : 4096;
  if (size < 1 || min_bytes < 4 || max_bytes < min_bytes) {
    fprintf(stderr, "usage: shm_allreduce RANKS MIN_BYTES MAX_BYTES [yield]\n");
    return 2;
  }
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const int yield = size > cpus || (argc > 4 && strcmp(argv[4], "yield") == 0);
  /* Per rank: its flag, then two slots of max_bytes. */
  const size_t slot = ((size_t)max_bytes + 63) & ~(size_t)63;
  const size_t stride = 64 + 2 * slot;
  char* shared = mmap(NULL, stride * (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  memset(shared, 0, stride * (size_t)size);
  int rank = 0;
  for (int r = 1; r < size; ++r) {
    pid_t pid = fork();
    if (pid < 0) {
      perror("fork");
      return 1;
    }
    if (pid == 0) {
      rank = r;
      break;
    }
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(rank % cpus, &set);
  sched_setaffinity(0, sizeof set, &set);
  Flag* flag[size];
  float* slots[size][2];
  for (int r = 0; r < size; ++r) {
    char* base = shared + stride * (size_t)r;
    flag[r] = (Flag*)base;
    slots[r][0] = (float*)(base + 64);
    slots[r][1] = (float*)(base + 64 + slot);
  }
  unsigned calls = 0;
  /* Publishes this rank's call `calls` and waits until every rank has. */
#define ARRIVE_AND_WAIT()                                                              \
  do {                                                                                 \
    ++calls;                                                                           \
    atomic_store_explicit(&flag[rank]->flag, calls, memory_order_release);            \
    for (int r = 0; r < size; ++r) {                                                   \
      while (atomic_load_explicit(&flag[r]->flag, memory_order_acquire) < calls) {     \
        if (yield) sched_yield();                                                      \
        else __builtin_ia32_pause();                                                   \
      }                                                                                \
    }                                                                                  \
  } while (0)
  for (long bytes = min_bytes; bytes <= max_bytes; bytes *= 4) {
    const long count = bytes / 4;
    float* in = malloc((size_t)bytes);
    float* out = malloc((size_t)bytes);
    for (long i = 0; i < count; ++i) in[i] = (float)(rank + 1);
    long iters = (256L * 1024 * 1024) / bytes / 4;
    if (iters < 3) iters = 3;
    if (iters > 2000) iters = 2000;
    double* times = malloc(sizeof(double) * (size_t)iters);
    const float want = (float)size * (float)(size + 1) / 2.0f;
    long wrong = 0;
    for (long i = -iters / 10 - 1; i < iters; ++i) {
      if (i == 0) ARRIVE_AND_WAIT(); /* a barrier after the warm-up */
      const double t0 = now_us();
      /* The first element tells the calls apart, so a slot read after a peer rewrote it shows. */
      in[0] = (float)(rank + 1 + (int)((calls + 1) & 1023));
      float* mine = slots[rank][(calls + 1) & 1];
      memcpy(mine, in, (size_t)bytes);
      ARRIVE_AND_WAIT();
      const int parity = calls & 1;
      const float* a = slots[0][parity];
      if (size == 1) {
        memcpy(out, a, (size_t)bytes);
      } else {
        const float* b = slots[1][parity];
        for (long k = 0; k < count; ++k) out[k] = a[k] + b[k];
      }
      for (int r = 2; r < size; ++r) {
        const float* b = slots[r][parity];
        for (long k = 0; k < count; ++k) out[k] += b[k];
      }
      if (i >= 0) times[i] = now_us() - t0;
      wrong += out[0] != want + (float)size * (float)(calls & 1023);
    }
    for (long k = 1; k < count; ++k) wrong += out[k] != want;
    qsort(times, (size_t)iters, sizeof(double), by_value);
    if (rank == 0) printf("BENCH {\"bytes\":%ld,\"us\":%.3f,\"wrong\":%ld}\n", bytes, times[iters / 2], wrong);
    fflush(stdout);
    free(times);
    free(in);
    free(out);
  }
  if (rank == 0) {
    int status = 0, failed = 0;
    for (int r = 1; r < size; ++r) {
      wait(&status);
      failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    }
    return failed;
  }
  return 0;
}
