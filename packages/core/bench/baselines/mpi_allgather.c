/* Baseline: Open MPI's MPI_Allgather (float32, separate send and receive buffers) at default
 * settings, timed as Kolo's allgather bench: size = total output bytes, each rank sends size/n
 * (whole floats), warm-up, then the median of per-iteration times on rank 0. Prints one JSON line per size:
 * BENCH {"bytes":..,"us":..,"wrong":..}. Built and run by scripts/bench.mjs. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

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
  for (long step = min_bytes; step <= max_bytes; step *= 4) {
    long per_rank = step / 4 / size;
    if (per_rank < 1) per_rank = 1;
    long count = per_rank * size;
    long bytes = count * 4;
    float* data = malloc(per_rank * 4);
    float* out = malloc(bytes);
    for (long i = 0; i < per_rank; ++i) data[i] = (float)(rank + 1);
    long iters = (256L * 1024 * 1024) / bytes / 4;
    if (iters < 3) iters = 3;
    if (iters > 2000) iters = 2000;  /* as Kolo's bench: enough samples for a steady median */
    for (int w = 0; w < 3; ++w) {
      MPI_Allgather(data, (int)per_rank, MPI_FLOAT, out, (int)per_rank, MPI_FLOAT, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double* times = malloc(sizeof(double) * iters);
    for (long i = 0; i < iters; ++i) {
      double t0 = MPI_Wtime();
      MPI_Allgather(data, (int)per_rank, MPI_FLOAT, out, (int)per_rank, MPI_FLOAT, MPI_COMM_WORLD);
      times[i] = (MPI_Wtime() - t0) * 1e6;
    }
    qsort(times, iters, sizeof(double), by_value);
    double us = times[iters / 2];
    free(times);
    long wrong = 0;
    for (long i = 0; i < count; ++i) wrong += out[i] != (float)(i / per_rank + 1);
    if (rank == 0) printf("BENCH {\"bytes\":%ld,\"us\":%.3f,\"wrong\":%ld}\n", bytes, us, wrong);
    free(data);
    free(out);
  }
  MPI_Finalize();
  return 0;
}
