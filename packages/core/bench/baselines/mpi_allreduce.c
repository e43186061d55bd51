/* Baseline: Open MPI's MPI_Allreduce (float32 sum) at default settings, timed the same way as
 * Kolo's bench (warm-up, then the median of per-iteration times on rank 0). Out of place (a
 * separate receive buffer), as Kolo's bench passes `output`; in place (MPI_IN_PLACE) with
 * KOLO_BENCH_IN_PLACE=1, as Kolo's bench then does too. Prints one JSON line per size:
 * BENCH {"bytes":..,"us":..}. Built and run by scripts/bench.mjs. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_value(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long min_bytes = argc > 1 ? atol(argv[1]) : 4096;
  long max_bytes = argc > 2 ? atol(argv[2]) : 64L * 1024 * 1024;
  const char* place = getenv("KOLO_BENCH_IN_PLACE");
  const int in_place = place != NULL && strcmp(place, "1") == 0;
  for (long bytes = min_bytes; bytes <= max_bytes; bytes *= 4) {
    long count = bytes / 4;
    float* data = malloc(bytes);
    float* out = malloc(bytes);
    for (long i = 0; i < count; ++i) data[i] = (float)(rank + 1);
    memset(out, 0, bytes);
    const void* send = in_place ? MPI_IN_PLACE : (const void*)data;
    float* recv = in_place ? data : out;
    long iters = (256L * 1024 * 1024) / bytes / 4;
    if (iters < 3) iters = 3;
    if (iters > 2000) iters = 2000;  /* as Kolo's bench: enough samples for a steady median */
    MPI_Allreduce(send, recv, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double* times = malloc(sizeof(double) * iters);
    for (long i = 0; i < iters; ++i) {
      double t0 = MPI_Wtime();
      MPI_Allreduce(send, recv, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      times[i] = (MPI_Wtime() - t0) * 1e6;
    }
    qsort(times, iters, sizeof(double), by_value);
    double us = times[iters / 2];
    free(times);
    if (rank == 0) printf("BENCH {\"bytes\":%ld,\"us\":%.3f}\n", bytes, us);
    free(data);
    free(out);
  }
  MPI_Finalize();
  return 0;
}
