/*
 * libzonelab_fio: the file size and the zoned-block-device callbacks fio's
 * zonemode=zbd uses (get_zoned_model, report_zones, reset_wp,
 * get_max_open_zones), after fio's own engines/libzbc.c and engines/xnvme.c.
 *
 * Copyright (C) 2025 The ZoneLab authors.
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * fio treats a regular file as a zone-less device and emulates zones in it
 * (zbd.c, zbd_get_zoned_model), so get_file_size marks the file a block device,
 * as xnvme does; fio then asks the engine for the zoned model and the zones. A
 * zoned ZoneLab model (zns-ssd, hm-smr-hdd, conzone) is host-managed, a block
 * model (ftl-ssd, cmr-hdd, conzone-block) is not zoned.
 */
#include <errno.h>
#include <string.h>

#include "zl_fio.h"

/* The device's geometry (see zlf_probe). */
static int probe_info(struct thread_data *td, ZlDeviceInfo *info)
{
	ZlZone *zones;

	return zlf_probe(td, info, &zones);
}

int zlf_get_file_size(struct thread_data *td, struct fio_file *f)
{
	ZlDeviceInfo info;
	int ret;

	if (fio_file_size_known(f))
		return 0;
	ret = probe_info(td, &info);
	if (ret) {
		td_verror(td, -ret, "zonelab: open zl_device");
		return ret;
	}
	f->filetype = FIO_TYPE_BLOCK;
	f->real_file_size = (uint64_t)info.capacity_blocks * info.block_bytes;
	fio_file_set_size_known(f);
	return 0;
}

int zlf_get_zoned_model(struct thread_data *td, struct fio_file *f, enum zbd_zoned_model *model)
{
	ZlDeviceInfo info;
	int ret = probe_info(td, &info);

	(void)f;
	if (ret)
		return ret;
	*model = info.zoned ? ZBD_HOST_MANAGED : ZBD_NONE;
	return 0;
}

static enum zbd_zone_cond zone_cond(uint32_t state)
{
	switch (state) {
	case ZL_ZONE_STATE_NOT_WRITE_POINTER: return ZBD_ZONE_COND_NOT_WP;
	case ZL_ZONE_STATE_EMPTY: return ZBD_ZONE_COND_EMPTY;
	case ZL_ZONE_STATE_IMPLICITLY_OPEN: return ZBD_ZONE_COND_IMP_OPEN;
	case ZL_ZONE_STATE_EXPLICITLY_OPEN: return ZBD_ZONE_COND_EXP_OPEN;
	case ZL_ZONE_STATE_CLOSED: return ZBD_ZONE_COND_CLOSED;
	case ZL_ZONE_STATE_FULL: return ZBD_ZONE_COND_FULL;
	case ZL_ZONE_STATE_READ_ONLY: return ZBD_ZONE_COND_READONLY;
	default: return ZBD_ZONE_COND_OFFLINE;
	}
}

int zlf_report_zones(struct thread_data *td, struct fio_file *f, uint64_t offset,
		    struct zbd_zone *out, unsigned int nr_zones)
{
	ZlDeviceInfo info;
	ZlZone *zones;
	uint64_t bs, first;
	unsigned int i;
	int ret = zlf_probe(td, &info, &zones);

	(void)f;
	if (ret)
		return ret;
	if (!info.zoned || !zones)
		return -EINVAL;
	bs = info.block_bytes;
	first = offset / (info.zone_size_blocks * bs);
	for (i = 0; i < nr_zones && first + i < info.zone_count; i++) {
		const ZlZone *z = &zones[first + i];

		out[i].start = z->start_lba * bs;
		out[i].len = z->size_blocks * bs;
		out[i].capacity = z->capacity_blocks * bs;
		out[i].wp = z->write_pointer * bs;
		out[i].type = z->zone_type == ZL_ZONE_TYPE_CONVENTIONAL ? ZBD_ZONE_TYPE_CNV
									: ZBD_ZONE_TYPE_SWR;
		out[i].cond = zone_cond(z->state);
	}
	return (int)i;
}

int zlf_reset_wp(struct thread_data *td, struct fio_file *f, uint64_t offset, uint64_t length)
{
	struct zl_job *job = td->io_ops_data;
	uint64_t zone_bytes, pos;

	if (!job || !job->shared) {
		log_err("zonelab: %s: zone reset before the job opened its device\n", f->file_name);
		return -EIO;
	}
	zone_bytes = job->shared->info.zone_size_blocks * job->shared->info.block_bytes;
	for (pos = offset; pos < offset + length; pos += zone_bytes) {
		if (zl_zone_reset(job->shared->dev, pos / job->shared->info.block_bytes) != ZL_OK) {
			log_err("zonelab: %s: reset of the zone at byte %llu: %s\n", f->file_name,
				(unsigned long long)pos, zl_last_error_message());
			return -EIO;
		}
	}
	return 0;
}

int zlf_get_max_open_zones(struct thread_data *td, struct fio_file *f, unsigned int *max_open_zones)
{
	ZlDeviceInfo info;
	int ret = probe_info(td, &info);

	(void)f;
	if (ret)
		return ret;
	*max_open_zones = info.max_open_zones;
	return 0;
}
