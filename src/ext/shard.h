/* shard.h: per-thread counters on free-threaded builds (3.14t, see
 * pc_shard in collector.h), the slow paths' lock and stopping the
 * world.  On a default build every name here is a no-op macro.
 * Included by collector.h only, after the types it names (pc_shard,
 * pc_t). */
#ifndef PC_SHARD_H
#define PC_SHARD_H

#include "compat.h"

#if PC_FREE_THREADING

/* This thread's shard, claimed on its first count (slow path, locked):
 * pc_shard_shared when none is free.  Never NULL. */
pc_shard *pc_shard_claim(void);

static inline pc_shard *
pc_shard_mine(void)
{
    pc_shard *s = pc_t.shard;
    return s != NULL ? s : pc_shard_claim();
}

/* Shard i (0..PC_SHARDS-1), NULL if no thread has claimed it yet: for
 * the folds, with the world stopped. */
pc_shard *pc_shard_get(int i);
/* dst[i] += src[i] for n counters, src zeroed: a shard's part into the
 * totals. */
void pc_fold_u64(uint64_t *dst, uint64_t *src, size_t n);

/* Add to a counter others may add to at once. */
#define PC_ATOMIC_ADD(x, n) ((void)__atomic_fetch_add(&(x), (n), __ATOMIC_RELAXED))

/* Add one to field of this thread's part of its shard s (NULL: none),
 * else to the total's with an atomic add. */
#define PC_SHARD_ADD(s, part, total, field)  \
    do {                                     \
        pc_shard *s_ = (s);                  \
        if (s_ != NULL && s_->index >= 0)    \
            s_->part.field++;                \
        else                                 \
            PC_ATOMIC_ADD((total).field, 1); \
    } while (0)

/* The slow paths' lock (first sight of code, claims, code deaths, the
 * folds), re-entrant in one thread.  A PyMutex: a thread waiting for it
 * lets the world stop. */
void pc_lock(void);
void pc_unlock(void);
/* The API's lock: its calls one at a time (module.c), re-entrant in one
 * thread.  Never taken by a callback; taken before pc_lock. */
void pc_api_lock(void);
void pc_api_unlock(void);
/* Stop every other thread of the interpreter at a safe point (none is
 * inside a callback then), and start them again.  Takes the lock. */
void pc_world_stop(void);
void pc_world_start(void);
/* The shards' opcode counts and pairs into pc_g, zeroed; or zeroed. */
void pc_shards_fold_opcodes(void);
void pc_shards_zero_opcodes(void);
/* A fork child: only this thread is left, and owns its shard only; the
 * locks are free. */
void pc_shards_after_fork(void);
/* The interpreter runs without the GIL now (PYTHON_GIL=0, -X gil=0). */
int pc_gil_off(void);
#else
#define PC_ATOMIC_ADD(x, n) ((void)((x) += (n)))
#define pc_lock() ((void)0)
#define pc_unlock() ((void)0)
#define pc_api_lock() ((void)0)
#define pc_api_unlock() ((void)0)
#define pc_world_stop() ((void)0)
#define pc_world_start() ((void)0)
#define pc_shards_after_fork() ((void)0)
#define pc_gil_off() 0
#endif

#endif
