// hhzs_cache.h — the SecondaryCache `hhzs_cache://` that turns RocksDB block-cache
// evictions into HHZS cache hints and serves primary-cache misses from the store's SSD
// cache (HHZS §3.4 caching, §3.1 hints).
//
// RocksDB's block-cache keys are opaque. They are tied to (SST, offset) on the reading
// thread: a Lookup that misses remembers its key; the next block read through one of
// this plugin's SST files on the same thread binds that key to the read's (file,
// offset). docs/rocksdb.md states when that holds in RocksDB 7.8.
#pragma once

#include <cstdint>
#include <string>

namespace hhzs {

// Called by HhzsRandomAccessFile::Read: binds this thread's pending missed key.
void BindPendingCacheKey(const std::string& sst_name, uint64_t offset, uint64_t len);
// Called when an SST is deleted: drops its keys.
void ForgetCacheKeysOf(const std::string& sst_name);

}  // namespace hhzs
