#include "engine/tensor_queue.h"

#include <unordered_set>

namespace kolo {

std::string DuplicateNameMessage() {
  return "Requested to allreduce, allgather, or broadcast a tensor with the same name as another "
         "tensor that is currently being processed.  If you want to request another tensor, use "
         "a different tensor name.";
}

Status TensorQueue::Add(std::vector<EntryPtr> entries) {
  std::lock_guard<std::mutex> lock(mu_);
  // Names repeated within the call: only a call of several requests (a group) can have them.
  std::unordered_set<std::string> names;
  for (const EntryPtr& e : entries) {
    if (table_.count(e->request.name) != 0 ||
        (entries.size() > 1 && !names.insert(e->request.name).second)) {
      return Status::Error(StatusCode::kDuplicateName,
                           DuplicateNameMessage() + " (name: '" + e->request.name + "')");
    }
  }
  for (EntryPtr& e : entries) {
    unsent_.push_back(e->request);
    std::string name = e->request.name;
    table_.emplace(std::move(name), std::move(e));
  }
  return Status::Ok();
}

std::vector<Request> TensorQueue::PopRequests() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Request> out;
  out.swap(unsent_);
  return out;
}

EntryPtr TensorQueue::Take(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = table_.find(name);
  if (it == table_.end()) return nullptr;
  EntryPtr e = std::move(it->second);
  table_.erase(it);
  return e;
}

std::optional<Request> TensorQueue::Find(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = table_.find(name);
  if (it == table_.end()) return std::nullopt;
  return it->second->request;
}

std::vector<EntryPtr> TensorQueue::TakeAll() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<EntryPtr> out;
  for (auto& [name, e] : table_) out.push_back(std::move(e));
  table_.clear();
  unsent_.clear();
  return out;
}

bool TensorQueue::HasUnsent() {
  std::lock_guard<std::mutex> lock(mu_);
  return !unsent_.empty();
}

size_t TensorQueue::Unsent() {
  std::lock_guard<std::mutex> lock(mu_);
  return unsent_.size();
}

size_t TensorQueue::InFlight() {
  std::lock_guard<std::mutex> lock(mu_);
  return table_.size();
}

}  // namespace kolo
