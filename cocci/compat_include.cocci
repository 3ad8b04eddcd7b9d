// SPDX-License-Identifier: GPL-2.0
/// Include the compat header timerconv generated, after the file's last
/// #include <...> (or, in a file that has none, its last #include "..."),
/// so that a converted out-of-tree module builds on kernels that predate
/// the API it now uses.
///
/// timerconv substitutes the header's name for TIMERCONV_COMPAT_INCLUDE,
/// as the file must write it: <linux/timerconv_compat.h> in a kernel
/// tree, "../include/foo_compat.h" (relative to the file) in a module,
/// and uses this rule only on the files its plan changes to the new API.
//
// Confidence: High
// Comments: used by `timerconv convert --compat-header`, not alone.
// Options: --no-includes --include-headers

virtual patch
virtual report
virtual facts

@compat_inc depends on patch@
@@

#include <...>
+ #include TIMERCONV_COMPAT_INCLUDE

@script:python depends on compat_inc@
@@

timerconv.done("compat", "include")

@compat_inc_q depends on patch && !compat_inc@
@@

#include "..."
+ #include TIMERCONV_COMPAT_INCLUDE

@script:python depends on compat_inc_q@
@@

timerconv.done("compat", "include")
