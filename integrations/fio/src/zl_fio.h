/*
 * libzonelab_fio: a fio external ioengine that drives ZoneLab's device models in
 * real time with real bytes (libzonelab's C ABI, docs/fio.md).
 *
 * Copyright (C) 2025 The ZoneLab authors.
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * This program is free software; you can redistribute it and/or modify it under
 * the terms of the GNU General Public License version 2 as published by the Free
 * Software Foundation (integrations/fio/COPYING). It is built against fio's
 * headers (GPL-2.0-only) and talks to libzonelab (Apache-2.0) only through
 * libzonelab's C ABI.
 */
#ifndef ZL_FIO_H
#define ZL_FIO_H

#include "fio.h"
#include "optgroup.h"
#include "zbd_types.h"
#include "zbd.h"
#include "zonelab.h"

/* Engine options (fio parses them into td->eo). */
struct zl_options {
	void *pad;		/* fio's option parser needs off1 != 0 */
	char *device;		/* zl_device: built-in profile name or .toml path */
	char *dir;		/* zl_dir: directory of the sparse backing file */
	char *dilation;		/* zl_dilation: wall time per modelled time (>= 1) */
	unsigned int zone_mib;	/* zl_zone_mib: scaled-down zone capacity, 0 = profile's */
	char *stats;		/* zl_stats: report file ("-" = stdout; default stderr) */
};

/* The parsed options that name one emulated device. */
struct zl_spec {
	char device[512];
	char backing[1024];	/* "" = bytes in memory */
	double dilation;
	unsigned int zone_mib;
	char key[1600];		/* device, backing, zone size and dilation */
};

/* One emulated device shared by every job of this process that names it. */
struct zl_shared {
	struct zl_shared *next;
	struct zl_spec spec;
	char stats_path[1024];
	ZlDevice *dev;
	ZlDeviceInfo info;
	int users;		/* jobs holding it now */
	int expected;		/* jobs that will release it (counted at open) */
	int released;
};

/* Per-job engine state (td->io_ops_data). */
struct zl_job {
	struct zl_shared *shared;
	unsigned int depth;
	unsigned int inflight;
	struct io_u **flight;	/* submitted, waiting for their deadline */
	uint64_t *deadline_ns;
	unsigned int nevents;
	struct io_u **events;	/* completed, handed out by ->event() */
};

/* zl_devices.c: options, the shared-device registry, the report. */
int zlf_spec_from_options(struct thread_data *td, struct zl_spec *out);
struct zl_shared *zlf_acquire(struct thread_data *td);
void zlf_release(struct thread_data *td, struct zl_shared *s);
int zlf_probe(struct thread_data *td, ZlDeviceInfo *info, ZlZone **zones);
extern struct fio_option zlf_fio_options[];

/* zl_zoned.c: the zoned-block-device callbacks for zonemode=zbd. */
int zlf_get_file_size(struct thread_data *td, struct fio_file *f);
int zlf_get_zoned_model(struct thread_data *td, struct fio_file *f,
		       enum zbd_zoned_model *model);
int zlf_report_zones(struct thread_data *td, struct fio_file *f, uint64_t offset,
		    struct zbd_zone *zones, unsigned int nr_zones);
int zlf_reset_wp(struct thread_data *td, struct fio_file *f, uint64_t offset,
		uint64_t length);
int zlf_get_max_open_zones(struct thread_data *td, struct fio_file *f,
			  unsigned int *max_open_zones);

/* Maps a libzonelab status to an errno for io_u->error. */
int zlf_errno(int32_t status);

#endif
