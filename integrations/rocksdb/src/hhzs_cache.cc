// hhzs_cache.cc — the SecondaryCache registered as `hhzs_cache://` (also `hhzs_cache`).
//
// Insert (a block evicted from the LRU block cache) -> zl_fs_hint_block_evicted with the
// block's persistable bytes; Lookup (a primary-cache miss) -> zl_fs_cache_lookup, and
// on a hit the block is rebuilt with RocksDB's create callback. The bytes handed to the
// store start with a header holding the cache key, so a wrong key binding can never
// return another block's bytes: a lookup whose header key differs is a miss.
#include "hhzs_cache.h"

#include <rocksdb/secondary_cache.h>
#include <rocksdb/utilities/object_registry.h>

#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>
#include <vector>

#include "hhzs_store.h"

using namespace ROCKSDB_NAMESPACE;

namespace hhzs {
namespace {

// RocksDB's block trailer: 1 byte compression type + 4 bytes checksum
// (table/format.h, kBlockTrailerSize). A block read of n bytes holds n - 5 bytes of block.
constexpr uint64_t kBlockTrailerBytes = 5;
// Header in front of the bytes kept in the store: key length (u32) + key.
constexpr size_t kKeyLenBytes = 4;
// First lookup buffer; a larger cached block is fetched again with its exact size.
constexpr uint64_t kLookupBufBytes = 64 * 1024;

struct Binding {
  std::string file;
  uint64_t offset;
  uint64_t read_len;
};

std::mutex g_mu;
std::unordered_map<std::string, Binding> g_bindings;             // key -> block
std::unordered_map<std::string, std::set<std::string>> g_by_file;  // file -> keys

thread_local bool t_pending_valid = false;
thread_local std::string t_pending_key;

bool FindBinding(const Slice& key, Binding* b) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_bindings.find(key.ToString());
  if (it == g_bindings.end()) return false;
  *b = it->second;
  return true;
}

class ReadyHandle : public SecondaryCacheResultHandle {
 public:
  ReadyHandle(void* value, size_t charge) : value_(value), charge_(charge) {}
  bool IsReady() override { return true; }
  void Wait() override {}
  void* Value() override { return value_; }
  size_t Size() override { return charge_; }

 private:
  void* value_;
  size_t charge_;
};

class HhzsSecondaryCache : public SecondaryCache {
 public:
  static const char* kClassName() { return "hhzs_cache"; }
  const char* Name() const override { return kClassName(); }

  Status Insert(const Slice& key, void* value, const Cache::CacheItemHelper* helper) override {
    Store* s = Store::Current();
    if (!s || !s->fs() || !helper || !helper->size_cb || !helper->saveto_cb) return Status::OK();
    s->counters().sec_inserts++;
    Binding b;
    if (!FindBinding(key, &b)) {
      s->counters().sec_insert_unbound++;
      return Status::OK();
    }
    size_t size = helper->size_cb(value);
    if (size + kBlockTrailerBytes == b.read_len)
      s->counters().binding_len_match++;
    else
      s->counters().binding_len_other++;
    std::vector<uint8_t> buf(kKeyLenBytes + key.size() + size);
    uint32_t klen = static_cast<uint32_t>(key.size());
    std::memcpy(buf.data(), &klen, kKeyLenBytes);
    std::memcpy(buf.data() + kKeyLenBytes, key.data(), key.size());
    Status st = helper->saveto_cb(value, 0, size, buf.data() + kKeyLenBytes + key.size());
    if (!st.ok()) return Status::OK();  // not kept; never an error for the primary cache
    if (zl_fs_hint_block_evicted(s->fs(), b.file.c_str(), b.offset, buf.data(), buf.size()) !=
        ZL_OK)
      s->counters().store_errors++;
    return Status::OK();
  }

  std::unique_ptr<SecondaryCacheResultHandle> Lookup(const Slice& key,
                                                     const Cache::CreateCallback& create_cb,
                                                     bool /*wait*/, bool /*advise_erase*/,
                                                     bool& is_in_sec_cache) override {
    is_in_sec_cache = false;
    // Whatever happens below, a miss makes RocksDB read the block on this thread.
    t_pending_valid = true;
    t_pending_key = key.ToString();
    Store* s = Store::Current();
    if (!s || !s->fs()) return nullptr;
    s->counters().sec_lookups++;
    Binding b;
    if (!FindBinding(key, &b)) {
      s->counters().sec_lookup_unbound++;
      return nullptr;
    }
    std::vector<uint8_t> buf(kLookupBufBytes);
    uint64_t len = 0;
    int32_t hit = 0;
    if (zl_fs_cache_lookup(s->fs(), b.file.c_str(), b.offset, buf.data(), buf.size(), &len,
                           &hit) != ZL_OK) {
      s->counters().store_errors++;
      return nullptr;
    }
    if (!hit) return nullptr;
    if (len > buf.size()) {
      buf.resize(len);
      if (zl_fs_cache_lookup(s->fs(), b.file.c_str(), b.offset, buf.data(), buf.size(), &len,
                             &hit) != ZL_OK ||
          !hit || len > buf.size())
        return nullptr;
    }
    uint32_t klen = 0;
    if (len < kKeyLenBytes) return nullptr;
    std::memcpy(&klen, buf.data(), kKeyLenBytes);
    if (len < kKeyLenBytes + klen || klen != key.size() ||
        std::memcmp(buf.data() + kKeyLenBytes, key.data(), klen) != 0) {
      s->counters().sec_hit_key_mismatch++;
      return nullptr;
    }
    void* obj = nullptr;
    size_t charge = 0;
    const uint8_t* data = buf.data() + kKeyLenBytes + klen;
    Status st = create_cb(data, len - kKeyLenBytes - klen, &obj, &charge);
    if (!st.ok() || !obj) return nullptr;
    t_pending_valid = false;  // served: no file read follows
    s->counters().sec_hits++;
    is_in_sec_cache = true;
    return std::make_unique<ReadyHandle>(obj, charge);
  }

  bool SupportForceErase() const override { return false; }
  void Erase(const Slice&) override {}
  void WaitAll(std::vector<SecondaryCacheResultHandle*>) override {}
  std::string GetPrintableOptions() const override { return "    hhzs_cache: HHZS SSD cache\n"; }
};

bool RegisterSecondaryCache() {
  auto lib = ObjectLibrary::Default();
  auto factory = [](const std::string&, std::unique_ptr<SecondaryCache>* guard, std::string*) {
    guard->reset(new HhzsSecondaryCache());
    return guard->get();
  };
  lib->AddFactory<SecondaryCache>(
      ObjectLibrary::PatternEntry("hhzs_cache", true).AddSeparator("://", false), factory);
  return true;
}
const bool g_registered = RegisterSecondaryCache();

}  // namespace

void BindPendingCacheKey(const std::string& sst_name, uint64_t offset, uint64_t len) {
  if (!t_pending_valid) return;
  t_pending_valid = false;
  Store* s = Store::Current();
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_bindings.find(t_pending_key);
  if (it != g_bindings.end()) {
    if (it->second.file == sst_name && it->second.offset == offset) return;
    g_by_file[it->second.file].erase(t_pending_key);
  }
  g_bindings[t_pending_key] = Binding{sst_name, offset, len};
  g_by_file[sst_name].insert(t_pending_key);
  if (s) s->counters().bindings++;
}

void ForgetCacheKeysOf(const std::string& sst_name) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_by_file.find(sst_name);
  if (it == g_by_file.end()) return;
  for (auto& k : it->second) g_bindings.erase(k);
  g_by_file.erase(it);
}

}  // namespace hhzs
