/* SPDX-License-Identifier: MIT */
#ifndef __NOUVEAU_GRTRACE_H__
#define __NOUVEAU_GRTRACE_H__

#include <linux/grtrace.h>

struct nouveau_channel;
struct nouveau_fence;
struct nouveau_fence_chan;

#if IS_ENABLED(CONFIG_GRTRACE_NOUVEAU)

/* A patched-out branch while nothing consumes grtrace events. */
static inline bool nouveau_grtrace_enabled(void)
{
	return grtrace_enabled();
}

void nouveau_grtrace_chan_init(struct nouveau_channel *chan,
			       struct nouveau_fence_chan *fctx);
void nouveau_grtrace_chan_fini(struct nouveau_fence_chan *fctx);
void nouveau_grtrace_chan_engine(struct nouveau_channel *chan, u64 engines);
void nouveau_grtrace_sched_fence(struct nouveau_fence *fence);
void nouveau_grtrace_fence(struct nouveau_fence_chan *fctx,
			   struct nouveau_fence *fence, u16 type);
void nouveau_grtrace_pushbuf_fence(struct nouveau_fence *fence);
void nouveau_grtrace_fence_lost(struct nouveau_fence_chan *fctx,
				struct nouveau_fence *fence, int err);
void nouveau_grtrace_irq(struct nouveau_fence_chan *fctx);
void nouveau_grtrace_chan_error(struct nouveau_channel *chan);

#else

static inline bool nouveau_grtrace_enabled(void) { return false; }
static inline void nouveau_grtrace_chan_init(struct nouveau_channel *chan,
					     struct nouveau_fence_chan *fctx) { }
static inline void nouveau_grtrace_chan_fini(struct nouveau_fence_chan *fctx) { }
static inline void nouveau_grtrace_chan_engine(struct nouveau_channel *chan,
					       u64 engines) { }
static inline void nouveau_grtrace_sched_fence(struct nouveau_fence *fence) { }
static inline void nouveau_grtrace_fence(struct nouveau_fence_chan *fctx,
					 struct nouveau_fence *fence,
					 u16 type) { }
static inline void nouveau_grtrace_pushbuf_fence(struct nouveau_fence *fence) { }
static inline void nouveau_grtrace_fence_lost(struct nouveau_fence_chan *fctx,
					      struct nouveau_fence *fence,
					      int err) { }
static inline void nouveau_grtrace_irq(struct nouveau_fence_chan *fctx) { }
static inline void nouveau_grtrace_chan_error(struct nouveau_channel *chan) { }

#endif

#endif /* __NOUVEAU_GRTRACE_H__ */
