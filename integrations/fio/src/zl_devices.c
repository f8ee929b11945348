/*
 * libzonelab_fio: engine options, the registry of emulated devices shared by the
 * jobs of one fio process, and the report each device prints when its last job
 * ends (docs/fio.md).
 *
 * Copyright (C) 2025 The ZoneLab authors.
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Sharing: fio keys its zone bookkeeping (zonemode=zbd) by file name and shares
 * it between jobs, so every job that names the same device must reach the same
 * model. With thread=1 all jobs live in one process and share one libzonelab
 * handle (it is thread-safe); the device stays open until the last job counted
 * when it was opened has ended, so a write job and a later read job (stonewall)
 * see the same bytes even without a backing file. Forked jobs (fio's default)
 * would each get a copy of the model: more than one job using the engine without
 * thread=1 is refused.
 *
 * fio calls get_file_size, get_zoned_model, report_zones and get_max_open_zones
 * in its main process before it forks the jobs. Those calls must not leave a
 * device open there (the fork would copy it, and the parent's copy would later
 * save a stale zone state to the backing file), so they use a short-lived probe:
 * the device is opened, described and closed, unless a job of this process holds
 * it open already.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "zl_fio.h"

struct fio_option zlf_fio_options[] = {
	{
		.name = "zl_device",
		.lname = "ZoneLab device profile",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(struct zl_options, device),
		.help = "ZoneLab device: a built-in profile (zn540, ssd-conventional, ...) or a profile .toml",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = "zl_dir",
		.lname = "ZoneLab backing-file directory",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(struct zl_options, dir),
		.help = "Keep the device's bytes and zone states in a sparse file in this directory (default: in memory)",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = "zl_dilation",
		.lname = "ZoneLab time dilation",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(struct zl_options, dilation),
		.help = "Wall time per modelled time, >= 1 (10: every modelled latency takes 10x as long)",
		.def = "1",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = "zl_zone_mib",
		.lname = "ZoneLab scaled zone capacity",
		.type = FIO_OPT_INT,
		.off1 = offsetof(struct zl_options, zone_mib),
		.minval = 0,
		.maxval = 65536,
		.help = "Zoned profiles: zones of this many MiB instead of the profile's (0 = profile's)",
		.def = "0",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = "zl_stats",
		.lname = "ZoneLab report file",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(struct zl_options, stats),
		.help = "Write the device's JSON report here when its last job ends ('-' = stdout; default stderr)",
		.category = FIO_OPT_C_ENGINE,
		.group = FIO_OPT_G_INVALID,
	},
	{
		.name = NULL,
	},
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct zl_shared *registry;

/* Devices described by a probe, kept for the process (info and zone report). */
struct zl_probed {
	struct zl_probed *next;
	char key[sizeof(((struct zl_spec *)0)->key)];
	ZlDeviceInfo info;
	ZlZone *zones;
};
static struct zl_probed *probed;

/* The profile's file-name stem: "zn540", or "my-ssd" for "dir/my-ssd.toml". */
static void device_stem(const char *device, char *out, size_t cap)
{
	const char *base = strrchr(device, '/');
	size_t n;

	base = base ? base + 1 : device;
	n = strlen(base);
	if (n > 5 && !strcmp(base + n - 5, ".toml"))
		n -= 5;
	if (n >= cap)
		n = cap - 1;
	memcpy(out, base, n);
	out[n] = '\0';
}

/* Parses `td`'s options; `quiet` checks another job's options without logging
 * (that job reports its own errors). */
static int parse_spec(struct thread_data *td, struct zl_spec *out, int quiet)
{
	const struct zl_options *o = td->eo;
	char stem[256], *end;
	int n;

	memset(out, 0, sizeof(*out));
	if (!o || !o->device || !o->device[0]) {
		if (!quiet)
			log_err("zonelab: zl_device is required: a built-in profile (zonelab devices lists them, e.g. zn540) or a profile .toml\n");
		return -EINVAL;
	}
	if (strlen(o->device) >= sizeof(out->device)) {
		if (!quiet)
			log_err("zonelab: zl_device is longer than %zu bytes\n", sizeof(out->device) - 1);
		return -EINVAL;
	}
	strcpy(out->device, o->device);
	errno = 0;
	out->dilation = o->dilation ? strtod(o->dilation, &end) : 1.0;
	if (o->dilation && (errno || end == o->dilation || *end || !isfinite(out->dilation) ||
			    out->dilation < 1.0)) {
		if (!quiet)
			log_err("zonelab: zl_dilation=%s is not a number >= 1\n", o->dilation);
		return -EINVAL;
	}
	out->zone_mib = o->zone_mib;
	if (o->dir && o->dir[0]) {
		device_stem(o->device, stem, sizeof(stem));
		if (out->zone_mib)
			n = snprintf(out->backing, sizeof(out->backing), "%s/%s-zone%umib.img",
				     o->dir, stem, out->zone_mib);
		else
			n = snprintf(out->backing, sizeof(out->backing), "%s/%s.img", o->dir, stem);
		if (n < 0 || (size_t)n >= sizeof(out->backing)) {
			if (!quiet)
				log_err("zonelab: zl_dir=%s is too long\n", o->dir);
			return -EINVAL;
		}
	}
	snprintf(out->key, sizeof(out->key), "%s|%s|%u|%.17g", out->device, out->backing,
		 out->zone_mib, out->dilation);
	return 0;
}

int zlf_spec_from_options(struct thread_data *td, struct zl_spec *out)
{
	return parse_spec(td, out, 0);
}

static int make_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0755) == 0 || (errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode)))
		return 0;
	log_err("zonelab: zl_dir=%s: cannot create the directory: %s\n", dir, strerror(errno));
	return -EIO;
}

static int open_spec(struct thread_data *td, const struct zl_spec *spec, ZlDevice **dev)
{
	const struct zl_options *o = td->eo;
	int32_t rc;

	if (spec->backing[0] && make_dir(o->dir))
		return -EIO;
	rc = zl_open_scaled(spec->device, spec->backing[0] ? spec->backing : NULL, spec->dilation,
			    spec->zone_mib, dev);
	if (rc != ZL_OK) {
		log_err("zonelab: cannot open zl_device=%s: %s\n", spec->device, zl_last_error_message());
		return -EINVAL;
	}
	return 0;
}

static struct zl_shared *find_open(const char *key)
{
	struct zl_shared *s;

	for (s = registry; s; s = s->next)
		if (!strcmp(s->spec.key, key))
			return s;
	return NULL;
}

/* Jobs of this run that use this engine (with any options). */
static int engine_jobs(struct thread_data *me)
{
	struct thread_data *td;
	int i, n = 0;

	for_each_td(td, i) {
		if (td->io_ops && td->io_ops->queue == me->io_ops->queue)
			n++;
	}
	return n;
}

/* Jobs of this run that name the same device as `spec`. */
static int jobs_sharing(struct thread_data *me, const struct zl_spec *spec)
{
	struct thread_data *td;
	struct zl_spec other;
	int i, n = 0;

	for_each_td(td, i) {
		if (!td->io_ops || td->io_ops->queue != me->io_ops->queue || !td->eo)
			continue;
		if (parse_spec(td, &other, 1) == 0 && !strcmp(other.key, spec->key))
			n++;
	}
	return n;
}

/* Two sets of options naming one backing file would open it twice. */
static int check_backing_unique(struct thread_data *me, const struct zl_spec *spec)
{
	struct thread_data *td;
	struct zl_spec other;
	int i;

	if (!spec->backing[0])
		return 0;
	for_each_td(td, i) {
		if (!td->io_ops || td->io_ops->queue != me->io_ops->queue || !td->eo)
			continue;
		if (parse_spec(td, &other, 1) == 0 && !strcmp(other.backing, spec->backing) &&
		    strcmp(other.key, spec->key)) {
			log_err("zonelab: jobs %s and %s use the backing file %s with different zl_device/zl_dilation; give them the same options or another zl_dir\n",
				me->o.name, td->o.name, spec->backing);
			return -EINVAL;
		}
	}
	return 0;
}

struct zl_shared *zlf_acquire(struct thread_data *td)
{
	struct zl_shared *s;
	struct zl_spec spec;
	int jobs;

	if (zlf_spec_from_options(td, &spec))
		return NULL;
	jobs = engine_jobs(td);
	if (!td->o.use_thread && jobs > 1) {
		log_err("zonelab: %d jobs use the zonelab engine as separate processes, which would each get their own copy of the device; add thread=1 (--thread) so they share one\n",
			jobs);
		return NULL;
	}
	if (check_backing_unique(td, &spec))
		return NULL;
	pthread_mutex_lock(&registry_lock);
	s = find_open(spec.key);
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s || open_spec(td, &spec, &s->dev)) {
			free(s);
			pthread_mutex_unlock(&registry_lock);
			return NULL;
		}
		s->spec = spec;
		zl_info(s->dev, &s->info);
		s->expected = td->o.use_thread ? jobs_sharing(td, &spec) : 1;
		if (td->eo && ((struct zl_options *)td->eo)->stats)
			snprintf(s->stats_path, sizeof(s->stats_path), "%s",
				 ((struct zl_options *)td->eo)->stats);
		s->next = registry;
		registry = s;
	}
	s->users++;
	pthread_mutex_unlock(&registry_lock);
	return s;
}

/* Writes the device's JSON report where zl_stats says (stderr by default). */
static void write_report(struct zl_shared *s)
{
	uint64_t needed = 0, cap;
	char *buf = NULL;
	FILE *out;
	int tries;

	if (zl_stats_json(s->dev, "fio", NULL, 0, &needed) != ZL_OK || !needed)
		return;
	/*
	 * The report holds the wall time, so it can grow between the call that sizes
	 * it and the one that fills it; zl_stats_json then copies nothing and only
	 * updates needed. Leave room and retry until it fits, so the file never gets
	 * an unfilled buffer.
	 */
	for (tries = 0; tries < 4; tries++) {
		cap = needed + 256;
		free(buf);
		buf = malloc(cap);
		if (!buf || zl_stats_json(s->dev, "fio", buf, cap, &needed) != ZL_OK) {
			free(buf);
			return;
		}
		if (needed <= cap)
			break;
	}
	if (needed > cap) {
		log_err("zonelab: the report of %s kept growing; not written\n", s->spec.device);
		free(buf);
		return;
	}
	if (!s->stats_path[0]) {
		fprintf(stderr, "zonelab: report of %s:\n%s\n", s->spec.device, buf);
	} else if (!strcmp(s->stats_path, "-")) {
		fprintf(stdout, "%s\n", buf);
		fflush(stdout);
	} else if ((out = fopen(s->stats_path, "w"))) {
		fprintf(out, "%s\n", buf);
		fclose(out);
	} else {
		log_err("zonelab: zl_stats=%s: %s\n", s->stats_path, strerror(errno));
	}
	free(buf);
}

static void close_shared(struct zl_shared *s)
{
	struct zl_shared **p;

	write_report(s);
	if (zl_close(s->dev) != ZL_OK)
		log_err("zonelab: closing %s: %s\n", s->spec.device, zl_last_error_message());
	for (p = &registry; *p; p = &(*p)->next) {
		if (*p == s) {
			*p = s->next;
			break;
		}
	}
	free(s);
}

void zlf_release(struct thread_data *td, struct zl_shared *s)
{
	(void)td;
	pthread_mutex_lock(&registry_lock);
	s->users--;
	s->released++;
	if (s->users == 0 && s->released >= s->expected)
		close_shared(s);
	pthread_mutex_unlock(&registry_lock);
}

/* A job that never started never releases its device: close it at unload. */
static void __attribute__((destructor)) zlf_close_remaining(void)
{
	struct zl_probed *p;

	pthread_mutex_lock(&registry_lock);
	while (registry)
		close_shared(registry);
	while ((p = probed)) {
		probed = p->next;
		free(p->zones);
		free(p);
	}
	pthread_mutex_unlock(&registry_lock);
}

/* Describes the device of `td`'s options: live if a job holds it open, else by
 * a short-lived open (see the top of this file). `*zones` (zoned devices only)
 * stays owned by this file. */
int zlf_probe(struct thread_data *td, ZlDeviceInfo *info, ZlZone **zones)
{
	struct zl_spec spec;
	struct zl_probed *p;
	struct zl_shared *s;
	ZlDevice *dev = NULL;
	uint32_t got = 0;
	int ret = 0;

	if (zlf_spec_from_options(td, &spec))
		return -EINVAL;
	pthread_mutex_lock(&registry_lock);
	for (p = probed; p && strcmp(p->key, spec.key); p = p->next)
		;
	s = find_open(spec.key);
	if (s && s->info.zoned) {
		/* Live: a job holds it (fio's setup can run inside a job). */
		if (!p) {
			p = calloc(1, sizeof(*p));
			if (!p) {
				ret = -ENOMEM;
				goto out;
			}
			snprintf(p->key, sizeof(p->key), "%s", spec.key);
			p->next = probed;
			probed = p;
		}
		p->info = s->info;
		free(p->zones);
		p->zones = calloc(s->info.zone_count, sizeof(ZlZone));
		if (!p->zones || zl_report_zones(s->dev, 0, p->zones, s->info.zone_count, &got) != ZL_OK) {
			ret = -EIO;
			goto out;
		}
	} else if (s) {
		p = NULL;
		*info = s->info;
		*zones = NULL;
		goto out;
	} else if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p) {
			ret = -ENOMEM;
			goto out;
		}
		ret = open_spec(td, &spec, &dev);
		if (ret) {
			free(p);
			goto out;
		}
		zl_info(dev, &p->info);
		if (p->info.zoned) {
			p->zones = calloc(p->info.zone_count, sizeof(ZlZone));
			if (!p->zones ||
			    zl_report_zones(dev, 0, p->zones, p->info.zone_count, &got) != ZL_OK) {
				log_err("zonelab: report zones of %s: %s\n", spec.device, zl_last_error_message());
				ret = -EIO;
			}
		}
		zl_close(dev);
		if (ret) {
			free(p->zones);
			free(p);
			goto out;
		}
		snprintf(p->key, sizeof(p->key), "%s", spec.key);
		p->next = probed;
		probed = p;
	}
	*info = p->info;
	*zones = p->zones;
out:
	pthread_mutex_unlock(&registry_lock);
	return ret;
}
