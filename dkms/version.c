// SPDX-License-Identifier: GPL-2.0
/*
 * modinfo fields of the DKMS build: which package and which series of
 * patches this nvme-rdma.ko carries (version.h is written at build time).
 */
#include <linux/module.h>
#include "version.h"

MODULE_VERSION(NVME_RDMA_SQ_VERSION);
MODULE_INFO(series, NVME_RDMA_SQ_SERIES);
