// SPDX-License-Identifier: MIT
/*
 * The events of include/trace/events/nouveau.h, exported for tools
 * outside nouveau.
 */

#define CREATE_TRACE_POINTS
#include <trace/events/nouveau.h>

EXPORT_TRACEPOINT_SYMBOL_GPL(nouveau_fence_emit);
EXPORT_TRACEPOINT_SYMBOL_GPL(nouveau_fence_uevent);
EXPORT_TRACEPOINT_SYMBOL_GPL(nouveau_channel_killed);
