// Shared by the raw-Gloo baselines: the command line <rank> <size> <store dir> [min bytes]
// [max bytes] and a full-mesh TCP context on 127.0.0.1, rendezvoused through a file store.
#pragma once

#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>

#include <cstdlib>
#include <memory>

struct GlooBaseline {
  int rank;
  int size;
  long min_bytes;
  long max_bytes;
  std::shared_ptr<gloo::rendezvous::Context> context;
};

inline GlooBaseline ConnectGlooBaseline(int argc, char** argv) {
  GlooBaseline b{std::atoi(argv[1]), std::atoi(argv[2]), argc > 4 ? std::atol(argv[4]) : 4096,
                 argc > 5 ? std::atol(argv[5]) : 64L * 1024 * 1024, nullptr};
  gloo::rendezvous::FileStore files(argv[3]);
  gloo::rendezvous::PrefixStore store("baseline", files);
  gloo::transport::tcp::attr attr;
  attr.hostname = "127.0.0.1";
  auto device = gloo::transport::tcp::CreateDevice(attr);
  b.context = std::make_shared<gloo::rendezvous::Context>(b.rank, b.size);
  b.context->connectFullMesh(store, device);
  return b;
}
