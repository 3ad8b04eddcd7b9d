// SPDX-License-Identifier: GPL-2.0
/// Include the compat header timerconv generated, after the file's last
/// #include <...>, so that a converted out-of-tree module builds on
/// kernels that predate the API it now uses.
///
/// timerconv substitutes the header's path for TIMERCONV_COMPAT_HEADER
/// (relative to the directory of the file being converted) and uses this
/// rule only on the files its plan changes to the new API.
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
+ #include "TIMERCONV_COMPAT_HEADER"

@script:python depends on compat_inc@
@@

timerconv.done("compat", "include")
