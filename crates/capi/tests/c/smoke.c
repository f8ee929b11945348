/* C test of libzonelab (crates/capi/tests/c_program.rs compiles and runs it).
 * usage: smoke <backing-file>
 * Opens zn540 in memory and with a backing file, then a zone file store in
 * <backing-file>.fs/ (round trip across a reopen); exits 0 only if every check
 * passes, printing the first failed check otherwise. */
#include "zonelab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, what)                                                      \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "FAILED line %d: %s (last error %d: %s)\n",        \
                    __LINE__, what, zl_last_error(), zl_last_error_message()); \
            return 1;                                                          \
        }                                                                      \
    } while (0)

enum { BLOCKS = 8 };

static void fill(unsigned char *buf, size_t len, unsigned seed) {
    for (size_t i = 0; i < len; i++)
        buf[i] = (unsigned char)(i * 31u + seed + (i >> 12));
}

/* zn540 in memory: write at the write pointer, read back, rule violations. */
static int in_memory(void) {
    ZlDevice *dev = (ZlDevice *)1;
    int32_t rc = zl_open("no-such-profile", NULL, 1.0, &dev);
    CHECK(rc == ZL_ERR_PROFILE, "a bad profile name returns ZL_ERR_PROFILE");
    CHECK(dev == NULL, "a failed open sets *out to NULL");
    CHECK(zl_last_error() == ZL_ERR_PROFILE, "zl_last_error matches");
    CHECK(strstr(zl_last_error_message(), "no-such-profile") != NULL,
          "the message names the bad profile");
    printf("bad profile: %d \"%s\"\n", rc, zl_last_error_message());

    CHECK(zl_open("zn540", NULL, 0.5, &dev) == ZL_ERR_INVALID_ARGUMENT,
          "a dilation below 1 is rejected");

    CHECK(zl_open("zn540", NULL, 1.0, &dev) == ZL_OK && dev != NULL, "open zn540");
    CHECK(zl_last_error() == ZL_OK && zl_last_error_message()[0] == '\0',
          "a success clears the last error");
    ZlDeviceInfo info;
    CHECK(zl_info(dev, &info) == ZL_OK, "zl_info");
    CHECK(info.zoned == 1 && info.block_bytes == 4096 && info.zone_count > 2,
          "zn540 is zoned with 4 KiB blocks");

    ZlZone zones[3];
    uint32_t n = 0;
    CHECK(zl_report_zones(dev, 0, zones, 3, &n) == ZL_OK && n == 3, "report 3 zones");
    CHECK(zones[1].state == ZL_ZONE_STATE_EMPTY &&
              zones[1].zone_type == ZL_ZONE_TYPE_SEQUENTIAL_WRITE_REQUIRED,
          "zone 1 is an empty sequential zone");
    uint64_t z1 = zones[1].start_lba, wp = zones[1].write_pointer;

    size_t len = (size_t)BLOCKS * info.block_bytes;
    unsigned char *data = malloc(len), *back = malloc(len);
    CHECK(data && back, "malloc");
    fill(data, len, 7);
    CHECK(zl_write(dev, wp, BLOCKS, data, len) == ZL_OK, "write at the write pointer");
    memset(back, 0xAA, len);
    CHECK(zl_read(dev, z1, BLOCKS, back, len) == ZL_OK, "read back");
    CHECK(memcmp(back, data, len) == 0, "read returns the written bytes");
    CHECK(zl_report_zones(dev, 1, zones, 1, &n) == ZL_OK && n == 1, "report zone 1");
    CHECK(zones[0].write_pointer == z1 + BLOCKS &&
              zones[0].state == ZL_ZONE_STATE_IMPLICITLY_OPEN,
          "the write pointer moved and the zone is implicitly open");

    rc = zl_write(dev, z1 + 100, BLOCKS, data, len);
    CHECK(rc == ZL_ERR_NOT_AT_WRITE_POINTER, "a write off the write pointer fails");
    CHECK(zl_last_error() == rc, "zl_last_error after the failed write");
    CHECK(strstr(zl_last_error_message(), "write pointer") != NULL,
          "the message explains the write pointer");
    printf("write off the write pointer: %d \"%s\"\n", rc, zl_last_error_message());

    CHECK(zl_write(dev, z1 + BLOCKS, BLOCKS, data, len - 1) == ZL_ERR_INVALID_ARGUMENT,
          "a buffer of the wrong length is rejected");
    CHECK(zl_write(NULL, 0, BLOCKS, data, len) == ZL_ERR_INVALID_ARGUMENT,
          "a NULL device is rejected");
    CHECK(zl_read(dev, info.capacity_blocks, BLOCKS, back, len) == ZL_ERR_OUT_OF_RANGE,
          "a read past the end is out of range");

    /* Zone append and zone management on zone 2. */
    uint64_t z2 = z1 + info.zone_size_blocks, landed = 0;
    CHECK(zl_append(dev, z2, BLOCKS, data, len, &landed) == ZL_OK && landed == z2,
          "zone append returns where the data landed");
    CHECK(zl_append(dev, z2, BLOCKS, data, len, &landed) == ZL_OK && landed == z2 + BLOCKS,
          "a second append lands after the first");
    CHECK(zl_zone_finish(dev, z2) == ZL_OK, "finish zone 2");
    CHECK(zl_report_zones(dev, 2, zones, 1, &n) == ZL_OK && zones[0].state == ZL_ZONE_STATE_FULL,
          "zone 2 is full");
    CHECK(zl_append(dev, z2, BLOCKS, data, len, &landed) == ZL_ERR_ZONE_FULL,
          "appending to a full zone fails");
    CHECK(zl_zone_reset(dev, z2) == ZL_OK, "reset zone 2");
    CHECK(zl_zone_open(dev, z2) == ZL_OK, "open zone 2");
    CHECK(zl_zone_close(dev, z2) == ZL_OK, "close zone 2 (untouched: empty again)");
    CHECK(zl_zone_open(dev, z2 + 1) == ZL_ERR_ZONE_STATE, "zone commands need a zone start");
    CHECK(zl_flush(dev) == ZL_OK, "flush");
    CHECK(zl_close(dev) == ZL_OK, "close");
    CHECK(zl_close(NULL) == ZL_OK, "closing NULL does nothing");
    free(data);
    free(back);
    return 0;
}

/* zn540 with a backing file: what was written is there after a reopen. */
static int backed(const char *path) {
    ZlDevice *dev = NULL;
    CHECK(zl_open("zn540", path, 1.0, &dev) == ZL_OK, "open zn540 with a backing file");
    ZlDeviceInfo info;
    CHECK(zl_info(dev, &info) == ZL_OK, "zl_info");
    size_t len = (size_t)BLOCKS * info.block_bytes;
    unsigned char *data = malloc(len), *back = malloc(len);
    CHECK(data && back, "malloc");
    fill(data, len, 3);
    uint64_t z3 = 3 * info.zone_size_blocks, landed = 0;
    CHECK(zl_append(dev, z3, BLOCKS, data, len, &landed) == ZL_OK && landed == z3, "append");
    CHECK(zl_close(dev) == ZL_OK, "close saves the zone states");

    CHECK(zl_open("zn540", path, 1.0, &dev) == ZL_OK, "reopen the backing file");
    ZlZone z;
    uint32_t n = 0;
    CHECK(zl_report_zones(dev, 3, &z, 1, &n) == ZL_OK && n == 1, "report zone 3");
    CHECK(z.write_pointer == z3 + BLOCKS && z.state == ZL_ZONE_STATE_IMPLICITLY_OPEN,
          "zone 3's write pointer and state survived the reopen");
    CHECK(zl_read(dev, z3, BLOCKS, back, len) == ZL_OK && memcmp(back, data, len) == 0,
          "zone 3's bytes survived the reopen");
    CHECK(zl_close(dev) == ZL_OK, "close");

    CHECK(zl_open("st14000nm0007", path, 1.0, &dev) == ZL_ERR_BACKING && dev == NULL,
          "the file does not open as another device");
    printf("backing file of another geometry: \"%s\"\n", zl_last_error_message());
    free(data);
    free(back);
    return 0;
}

/* The zone file store: create, unaligned append, sync, close, reopen, read. */
static int file_store(const char *base) {
    char dir[1024], config[1100];
    snprintf(dir, sizeof dir, "%s.fs", base);
    snprintf(config, sizeof config, "%s.toml", dir);
    FILE *f = fopen(config, "w");
    CHECK(f != NULL, "write the config");
    fprintf(f, "dir = \"%s\"\nzone_capacity_mib_ssd = 4\nzone_capacity_mib_hdd = 4\n"
               "ssd_zone_budget = 6\n", dir);
    fclose(f);
    static unsigned char data[10000], back[10000];
    fill(data, sizeof data, 7);
    ZlFs *fs = NULL;
    CHECK(zl_fs_open(config, &fs) == ZL_OK, "zl_fs_open");
    CHECK(zl_fs_create(fs, "000001.log", ZL_FILE_WAL, -1) == ZL_OK, "create");
    CHECK(zl_fs_append(fs, "000001.log", data, 6000) == ZL_OK, "append");
    CHECK(zl_fs_append(fs, "000001.log", data + 6000, 4000) == ZL_OK, "append");
    CHECK(zl_fs_sync(fs, "000001.log") == ZL_OK, "sync");
    CHECK(zl_fs_append(fs, "missing.sst", data, 1) == ZL_ERR_NOT_FOUND,
          "append to a missing file");
    CHECK(zl_fs_close(fs) == ZL_OK, "zl_fs_close");
    CHECK(zl_fs_open(config, &fs) == ZL_OK, "reopen");
    uint64_t size = 0, got = 0;
    CHECK(zl_fs_size(fs, "000001.log", &size) == ZL_OK && size == sizeof data, "size");
    CHECK(zl_fs_read(fs, "000001.log", 0, back, sizeof back, &got) == ZL_OK, "read");
    CHECK(got == sizeof data && memcmp(data, back, sizeof data) == 0, "bytes survive");
    CHECK(zl_fs_check(fs) == ZL_OK, "check");
    CHECK(zl_fs_close(fs) == ZL_OK, "close");
    printf("file store: %llu bytes round-tripped\n", (unsigned long long)got);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <backing-file>\n", argv[0]);
        return 2;
    }
    if (in_memory() != 0 || backed(argv[1]) != 0 || file_store(argv[1]) != 0)
        return 1;
    printf("ok\n");
    return 0;
}
