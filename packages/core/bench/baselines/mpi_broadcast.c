/* Baseline: Open MPI's MPI_Bcast (float32, root 0) at default settings, timed as Kolo's
 * broadcast bench (warm-up, then the median of per-iteration times on rank 0). Prints one JSON line per
 * size: BENCH {"bytes":..,"us":..,"wrong":..}. Built and run by scripts/bench.mjs. */
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
  for (long bytes = min_bytes; bytes <= max_bytes; bytes *= 4) {
    long count = bytes / 4;
    float* data = malloc(bytes);
    for (long i = 0; i < count; ++i) data[i] = rank == 0 ? 7.0f : 0.0f;
    long iters = (256L * 1024 * 1024) / bytes / 4;
    if (iters < 3) iters = 3;
    if (iters > 2000) iters = 2000;  /* as Kolo's bench: enough samples for a steady median */
    for (int w = 0; w < 3; ++w) MPI_Bcast(data, (int)count, MPI_FLOAT, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double* times = malloc(sizeof(double) * iters);
    for (long i = 0; i < iters; ++i) {
      double t0 = MPI_Wtime();
      MPI_Bcast(data, (int)count, MPI_FLOAT, 0, MPI_COMM_WORLD);
      times[i] = (MPI_Wtime() - t0) * 1e6;
    }
    qsort(times, iters, sizeof(double), by_value);
    double us = times[iters / 2];
    free(times);
    long wrong = 0;
    for (long i = 0; i < count; ++i) wrong += data[i] != 7.0f;
    /* Rank 0 holds the source; the count that matters is a receiver's. */
    long theirs = wrong;
    if (size > 1) {
      if (rank == 1) MPI_Send(&wrong, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD);
      if (rank == 0) MPI_Recv(&theirs, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rank == 0) printf("BENCH {\"bytes\":%ld,\"us\":%.3f,\"wrong\":%ld}\n", bytes, us, wrong + theirs);
    free(data);
  }
  MPI_Finalize();
  return 0;
}
