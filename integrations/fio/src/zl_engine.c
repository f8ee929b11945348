/*
 * libzonelab_fio: the ioengine (--ioengine=external:libzonelab_fio.so). Reads,
 * writes, trims and flushes go to a ZoneLab device model in emulation mode
 * through libzonelab's C ABI; each completes when the model says, on the
 * (optionally dilated) wall clock. The engine is asynchronous: a request is
 * handed to the model at once (zl_submit_nowait) and fio reaps it when the wall
 * clock reaches its deadline, so iodepth=N keeps N requests inside the model,
 * which queues them on its channels, dies or actuator.
 *
 * Copyright (C) 2025 The ZoneLab authors.
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "zl_fio.h"

int zlf_errno(int32_t status)
{
	switch (status) {
	case ZL_ERR_INVALID_ARGUMENT:
	case ZL_ERR_OUT_OF_RANGE:
		return EINVAL;
	case ZL_ERR_UNSUPPORTED:
		return EOPNOTSUPP;
	case ZL_ERR_NO_SPACE:
		return ENOSPC;
	default:
		/* Zone rule violations come back as EIO, as from a zoned block device. */
		return EIO;
	}
}

static int zlf_init(struct thread_data *td)
{
	struct zl_job *job = calloc(1, sizeof(*job));

	if (!job)
		return 1;
	job->depth = td->o.iodepth ? td->o.iodepth : 1;
	job->flight = calloc(job->depth, sizeof(*job->flight));
	job->deadline_ns = calloc(job->depth, sizeof(*job->deadline_ns));
	job->events = calloc(job->depth, sizeof(*job->events));
	job->shared = job->flight && job->deadline_ns && job->events ? zlf_acquire(td) : NULL;
	if (!job->shared) {
		free(job->flight);
		free(job->deadline_ns);
		free(job->events);
		free(job);
		return 1;
	}
	td->io_ops_data = job;
	return 0;
}

static void zlf_cleanup(struct thread_data *td)
{
	struct zl_job *job = td->io_ops_data;

	if (!job)
		return;
	zlf_release(td, job->shared);
	free(job->flight);
	free(job->deadline_ns);
	free(job->events);
	free(job);
	td->io_ops_data = NULL;
}

static int zlf_open_file(struct thread_data *td, struct fio_file *f)
{
	(void)td;
	(void)f;
	return 0;
}

static int zlf_close_file(struct thread_data *td, struct fio_file *f)
{
	(void)td;
	(void)f;
	return 0;
}

/* A request the model refused: fio sees an errno, the user one line. */
static enum fio_q_status refused(struct io_u *io_u, const char *what)
{
	io_u->error = zlf_errno(zl_last_error());
	log_err("zonelab: %s %s at byte %llu (+%llu): %s\n", io_u->file->file_name, what,
		io_u->offset, io_u->xfer_buflen, zl_last_error_message());
	return FIO_Q_COMPLETED;
}

static enum fio_q_status zlf_queue(struct thread_data *td, struct io_u *io_u)
{
	struct zl_job *job = td->io_ops_data;
	const ZlDeviceInfo *info = &job->shared->info;
	uint64_t bs = info->block_bytes;
	ZlCompletion c;
	uint32_t op;
	const char *what;
	int32_t rc;
	int ret;

	fio_ro_check(td, io_u);
	switch (io_u->ddir) {
	case DDIR_READ:
		op = ZL_OP_READ;
		what = "read";
		break;
	case DDIR_WRITE:
		op = ZL_OP_WRITE;
		what = "write";
		break;
	case DDIR_TRIM:
		if (info->zoned && td->o.zone_mode == ZONE_MODE_ZBD) {
			/* A trim of a sequential zone is a zone reset (fio's zbd.c). */
			ret = zbd_do_io_u_trim(td, io_u);
			if (ret <= 0)
				io_u->error = ret < 0 ? -ret : EINVAL;
			return FIO_Q_COMPLETED;
		}
		op = ZL_OP_TRIM;
		what = "trim";
		break;
	default:
		if (!ddir_sync(io_u->ddir)) {
			io_u->error = EINVAL;
			return FIO_Q_COMPLETED;
		}
		op = ZL_OP_FLUSH;
		what = "flush";
		break;
	}
	if (op != ZL_OP_FLUSH && (io_u->offset % bs || io_u->xfer_buflen % bs)) {
		io_u->error = EINVAL;
		log_err("zonelab: %s %s at byte %llu (+%llu) is not aligned to the device's %llu-byte blocks\n",
			io_u->file->file_name, what, io_u->offset, io_u->xfer_buflen,
			(unsigned long long)bs);
		return FIO_Q_COMPLETED;
	}
	rc = zl_submit_nowait(job->shared->dev, op, io_u->offset / bs,
			      (uint32_t)(io_u->xfer_buflen / bs), io_u->xfer_buf,
			      op == ZL_OP_FLUSH ? 0 : io_u->xfer_buflen, &c);
	if (rc != ZL_OK)
		return refused(io_u, what);
	if (job->inflight == job->depth) {
		/* fio never queues more than iodepth; wait it out if it does. */
		zl_wait_until(job->shared->dev, c.deadline_ns);
		return FIO_Q_COMPLETED;
	}
	job->flight[job->inflight] = io_u;
	job->deadline_ns[job->inflight] = c.deadline_ns;
	job->inflight++;
	return FIO_Q_QUEUED;
}

/* Index of the in-flight request with the earliest deadline (inflight > 0). */
static unsigned int earliest(const struct zl_job *job)
{
	unsigned int i, best = 0;

	for (i = 1; i < job->inflight; i++)
		if (job->deadline_ns[i] < job->deadline_ns[best])
			best = i;
	return best;
}

/* Moves requests whose deadline has passed to the event list, earliest
 * deadline first, at most `max` of them. fio often asks for one event at a time
 * (iodepth_batch_complete_max defaults to 1): taking any due request instead of
 * the earliest let a request sit unreaped behind newer ones for the whole run. */
static void reap(struct zl_job *job, uint64_t now_ns, unsigned int max)
{
	while (job->inflight && job->nevents < max) {
		unsigned int i = earliest(job);

		if (job->deadline_ns[i] > now_ns)
			break;
		job->events[job->nevents++] = job->flight[i];
		job->inflight--;
		job->flight[i] = job->flight[job->inflight];
		job->deadline_ns[i] = job->deadline_ns[job->inflight];
	}
}

static int zlf_getevents(struct thread_data *td, unsigned int min, unsigned int max,
			const struct timespec *t)
{
	struct zl_job *job = td->io_ops_data;
	ZlDevice *dev = job->shared->dev;
	uint64_t now, next, limit = UINT64_MAX;

	job->nevents = 0;
	zl_clock_ns(dev, &now);
	if (t)
		limit = now + (uint64_t)t->tv_sec * 1000000000ull + (uint64_t)t->tv_nsec;
	for (;;) {
		reap(job, now, max);
		if (job->nevents >= min || !job->inflight || now >= limit)
			break;
		next = job->deadline_ns[earliest(job)];
		zl_wait_until(dev, next < limit ? next : limit);
		zl_clock_ns(dev, &now);
	}
	return (int)job->nevents;
}

static struct io_u *zlf_event(struct thread_data *td, int event)
{
	struct zl_job *job = td->io_ops_data;

	return job->events[event];
}

struct ioengine_ops ioengine = {
	.name = "zonelab",
	.version = FIO_IOOPS_VERSION,
	.flags = FIO_DISKLESSIO | FIO_NODISKUTIL | FIO_NOEXTEND,
	.init = zlf_init,
	.cleanup = zlf_cleanup,
	.queue = zlf_queue,
	.getevents = zlf_getevents,
	.event = zlf_event,
	.open_file = zlf_open_file,
	.close_file = zlf_close_file,
	.get_file_size = zlf_get_file_size,
	.get_zoned_model = zlf_get_zoned_model,
	.report_zones = zlf_report_zones,
	.reset_wp = zlf_reset_wp,
	.get_max_open_zones = zlf_get_max_open_zones,
	.options = zlf_fio_options,
	.option_struct_size = sizeof(struct zl_options),
};
