// SPDX-License-Identifier: MIT
/*
 * The events of include/trace/events/amdgpu.h, apart from those of
 * amdgpu_trace.h: one TRACE_SYSTEM may be created once per file.
 */

#define CREATE_TRACE_POINTS
#include <trace/events/amdgpu.h>

EXPORT_TRACEPOINT_SYMBOL_GPL(amdgpu_fence_process);
EXPORT_TRACEPOINT_SYMBOL_GPL(amdgpu_job_recovery);
