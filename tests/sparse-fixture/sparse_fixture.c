// SPDX-License-Identifier: GPL-2.0
/*
 * Never loaded: check-series.sh compiles it with C=2 to prove that sparse
 * really checks in this tree (a sparse that cannot parse the kernel's
 * headers reports nothing at all).  The assignment below mixes address
 * spaces, which sparse must report.
 */
#include <linux/compiler.h>
#include <linux/module.h>

static int __user *sparse_fixture_ptr;

void sparse_fixture_set(int *p);
void sparse_fixture_set(int *p)
{
	sparse_fixture_ptr = p;
}

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("sparse fixture, never loaded");
