#include "engine/tensor_queue.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "engine/kernels.h"

namespace kolo {

void ResultBuffer::Free::operator()(char* p) const { std::free(p); }

void ResultBuffer::Allocate(size_t n) {
  data_.reset();
  size_ = 0;
  if (n == 0) return;
  data_.reset(static_cast<char*>(std::malloc(n)));
  if (data_ == nullptr) throw std::bad_alloc();
  size_ = n;
}

void ResultBuffer::AssignZeros(size_t n) {
  Allocate(n);
  if (n > 0) std::memset(data_.get(), 0, n);
}

void ResultBuffer::Assign(const char* begin, const char* end) {
  Allocate(static_cast<size_t>(end - begin));
  if (size_ > 0) CopyBytes(data_.get(), begin, size_);
}

std::string DuplicateNameMessage() {
  return "Requested to allreduce, allgather, or broadcast a tensor with the same name as another "
         "tensor that is currently being processed.  If you want to request another tensor, use "
         "a different tensor name.";
}

Status TensorQueue::Add(std::vector<EntryPtr>& entries) {
  std::lock_guard<std::mutex> lock(mu_);
  Status status = AddLocked(entries);
  Recount();
  return status;
}

void TensorQueue::AddEach(std::vector<std::vector<EntryPtr>>& calls, std::vector<Status>& statuses) {
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < statuses.size(); ++i) {
    if (statuses[i].ok()) statuses[i] = AddLocked(calls[i]);
  }
  Recount();
}

Status TensorQueue::AddLocked(std::vector<EntryPtr>& entries) {
  for (size_t i = 0; i < entries.size(); ++i) {
    TensorEntry* e = entries[i].get();
    auto [slot, fresh] = table_.try_emplace(std::string_view(e->request.name));
    if (!fresh) {  // in flight already, or repeated within the call (a group)
      Status duplicate = Status::Error(StatusCode::kDuplicateName,
                                       DuplicateNameMessage() + " (name: '" + e->request.name + "')");
      // Take back this call's entries (the last i unsent ones), so the table is as it was.
      for (size_t k = i; k-- > 0;) {
        auto it = table_.find(std::string_view(unsent_.back()->request.name));
        entries[k] = std::move(it->second);
        table_.erase(it);
        unsent_.pop_back();
      }
      return duplicate;
    }
    e->popped = false;
    unsent_.push_back(e);
    slot->second = std::move(entries[i]);
  }
  entries.clear();
  return Status::Ok();
}

void TensorQueue::PopRequests(std::vector<const Request*>& out) {
  out.clear();
  std::lock_guard<std::mutex> lock(mu_);
  for (TensorEntry* e : unsent_) {
    e->popped = true;
    out.push_back(&e->request);
  }
  unsent_.clear();
  Recount();
}

void TensorQueue::Forget(const TensorEntry& e) {
  if (e.popped) return;
  auto it = std::find(unsent_.begin(), unsent_.end(), &e);
  if (it != unsent_.end()) unsent_.erase(it);
}

EntryPtr TensorQueue::Take(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = table_.find(std::string_view(name));
  if (it == table_.end()) return nullptr;
  EntryPtr e = std::move(it->second);
  table_.erase(it);
  Forget(*e);
  Recount();
  return e;
}

void TensorQueue::TakeEach(const std::vector<std::string>& names, std::vector<EntryPtr>& out) {
  TakeEachOf(names, out);
}

void TensorQueue::TakeEach(const std::vector<std::string_view>& names, std::vector<EntryPtr>& out) {
  TakeEachOf(names, out);
}

void TensorQueue::PeekEach(const std::vector<std::string_view>& names, std::vector<const TensorEntry*>& out) {
  out.clear();
  out.reserve(names.size());
  std::lock_guard<std::mutex> lock(mu_);
  for (std::string_view name : names) {
    auto it = table_.find(name);
    out.push_back(it == table_.end() ? nullptr : it->second.get());
  }
}

template <typename Names>
void TensorQueue::TakeEachOf(const Names& names, std::vector<EntryPtr>& out) {
  out.clear();
  out.reserve(names.size());
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& name : names) {
    auto it = table_.find(std::string_view(name));
    if (it == table_.end()) {
      out.emplace_back();
      continue;
    }
    out.push_back(std::move(it->second));
    table_.erase(it);
    Forget(*out.back());
  }
  Recount();
}

std::optional<Request> TensorQueue::Find(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = table_.find(std::string_view(name));
  if (it == table_.end()) return std::nullopt;
  return it->second->request;
}

const TensorEntry* TensorQueue::Peek(std::string_view name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = table_.find(name);
  return it == table_.end() ? nullptr : it->second.get();
}

std::vector<EntryPtr> TensorQueue::TakeAll() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<EntryPtr> out;
  out.reserve(table_.size());
  for (auto& slot : table_) out.push_back(std::move(slot.second));
  table_.clear();
  unsent_.clear();
  Recount();
  return out;
}

}  // namespace kolo
