/* SPDX-License-Identifier: MIT */
#ifndef __I915_GRTRACE_H__
#define __I915_GRTRACE_H__

#include <linux/grtrace.h>

struct i915_request;
struct intel_engine_cs;

#if IS_ENABLED(CONFIG_GRTRACE_I915)

/* A patched-out branch while nothing consumes grtrace events. */
static inline bool i915_grtrace_enabled(void)
{
	return grtrace_enabled();
}

void i915_grtrace_engine_register(struct intel_engine_cs *engine);
void i915_grtrace_engine_unregister(struct intel_engine_cs *engine);
void i915_grtrace_request(const struct i915_request *rq, u16 type);
void i915_grtrace_ctx_switch(struct intel_engine_cs *engine,
			     const struct i915_request *prev,
			     const struct i915_request *next);
void i915_grtrace_error(struct intel_engine_cs *engine,
			const struct i915_request *rq, s32 code);

#else

static inline bool i915_grtrace_enabled(void) { return false; }
static inline void i915_grtrace_engine_register(struct intel_engine_cs *engine) { }
static inline void i915_grtrace_engine_unregister(struct intel_engine_cs *engine) { }
static inline void i915_grtrace_request(const struct i915_request *rq, u16 type) { }
static inline void i915_grtrace_ctx_switch(struct intel_engine_cs *engine,
					   const struct i915_request *prev,
					   const struct i915_request *next) { }
static inline void i915_grtrace_error(struct intel_engine_cs *engine,
				      const struct i915_request *rq,
				      s32 code) { }

#endif

#endif /* __I915_GRTRACE_H__ */
