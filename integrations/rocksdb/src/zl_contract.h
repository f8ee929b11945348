// zl_contract.h — the zone-file-store half of libzonelab's C ABI, as agreed in the
// contract between the Rust store (branch hhzs-fs) and this plugin.
//
// TEMPORARY: while crates/capi/include/zonelab.h does not yet declare zl_fs_open, this
// header repeats the contract's declarations so the plugin compiles. It is deleted once
// the Rust side is merged (the plugin then includes zonelab.h only).
#pragma once
#include <stdint.h>

#include "zonelab.h"

#ifndef ZL_FILE_WAL
#ifdef __cplusplus
extern "C" {
#endif
typedef struct ZlFs ZlFs;
#define ZL_FILE_WAL 1
#define ZL_FILE_SST 2
int32_t zl_fs_open(const char *config_path, ZlFs **out);
int32_t zl_fs_close(ZlFs *fs);
int32_t zl_fs_create(ZlFs *fs, const char *name, int32_t kind, int32_t level);
int32_t zl_fs_set_level(ZlFs *fs, const char *name, int32_t level);
int32_t zl_fs_append(ZlFs *fs, const char *name, const uint8_t *buf, uint64_t len);
int32_t zl_fs_sync(ZlFs *fs, const char *name);
int32_t zl_fs_close_file(ZlFs *fs, const char *name);
int32_t zl_fs_read(ZlFs *fs, const char *name, uint64_t offset, uint8_t *buf, uint64_t len, uint64_t *read);
int32_t zl_fs_size(ZlFs *fs, const char *name, uint64_t *size);
int32_t zl_fs_delete(ZlFs *fs, const char *name);
int32_t zl_fs_rename(ZlFs *fs, const char *from, const char *to);
int32_t zl_fs_list(ZlFs *fs, char *buf, uint64_t cap, uint64_t *needed);
int32_t zl_fs_hint_flush(ZlFs *fs, uint64_t job, const char *sst_name);
int32_t zl_fs_hint_compaction_begin(ZlFs *fs, uint64_t job, const char *const *inputs, uint64_t n_inputs, int32_t output_level);
int32_t zl_fs_hint_compaction_end(ZlFs *fs, uint64_t job, const char *const *outputs, uint64_t n_outputs, int32_t output_level);
int32_t zl_fs_hint_trivial_move(ZlFs *fs, const char *sst_name, int32_t to_level);
int32_t zl_fs_hint_block_evicted(ZlFs *fs, const char *sst_name, uint64_t offset, const uint8_t *data, uint64_t len);
int32_t zl_fs_cache_lookup(ZlFs *fs, const char *sst_name, uint64_t offset, uint8_t *buf, uint64_t cap, uint64_t *len, int32_t *hit);
int32_t zl_fs_stats_json(ZlFs *fs, char *buf, uint64_t cap, uint64_t *needed);
int32_t zl_fs_check(ZlFs *fs);
#ifdef __cplusplus
}
#endif
#endif
