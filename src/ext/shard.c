/* shard.c: per-thread counters on free-threaded builds (3.14t), where
 * threads run Python code in parallel without the GIL (see pc_shard in
 * collector.h).  Each thread counts into its own shard, claimed on its
 * first count; readers (dump, snapshot) first fold every shard into the
 * shared counters with the world stopped, when no thread is inside a
 * callback.  Nothing here runs on a default build. */
#include "collector.h"

#if PC_FREE_THREADING

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The shard of every thread that found none free: its counters take
 * atomic adds. */
static pc_shard pc_shard_shared = {.index = -1};

static pc_shard *shards[PC_SHARDS]; /* claimed at least once, or NULL */
static PyMutex lock, api;
static __thread int api_depth;
static pthread_key_t owner_key; /* its value: the thread's shard */
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static int key_ok;

void
pc_lock(void)
{
    if (pc_t.locked++ == 0)
        PyMutex_Lock(&lock);
}

void
pc_unlock(void)
{
    assert(pc_t.locked > 0);
    if (--pc_t.locked == 0)
        PyMutex_Unlock(&lock);
}

/* A thread ends (its TLS destructors run): its shard is free again, its
 * counts kept for the next fold. */
static void
thread_gone(void *p)
{
    pc_shard *s = p;
    assert(s->index >= 0 && __atomic_load_n(&s->owned, __ATOMIC_ACQUIRE));
    __atomic_store_n(&s->owned, 0, __ATOMIC_RELEASE);
}

static void
make_key(void)
{
    key_ok = pthread_key_create(&owner_key, thread_gone) == 0;
}

void
pc_api_lock(void)
{
    if (api_depth++ == 0)
        PyMutex_Lock(&api);
}

void
pc_api_unlock(void)
{
    assert(api_depth > 0);
    if (--api_depth == 0)
        PyMutex_Unlock(&api);
}

pc_shard *
pc_shard_claim(void)
{
    pc_shard *s = &pc_shard_shared;
    int i;

    assert(pc_t.shard == NULL); /* a thread claims once (pc_shard_mine) */
    pthread_once(&key_once, make_key);
    pc_lock();
    for (i = 0; key_ok && i < PC_SHARDS; i++) {
        pc_shard *c = shards[i];
        if (c == NULL) {
            c = calloc(1, sizeof *c);
            if (c == NULL)
                break; /* the shared counters: exact, slower */
            c->index = i;
            shards[i] = c;
        }
        if (__atomic_load_n(&c->owned, __ATOMIC_ACQUIRE))
            continue;
        if (pthread_setspecific(owner_key, c) != 0)
            break;
        c->owned = 1;
        s = c;
        break;
    }
    pc_unlock();
    assert(s == &pc_shard_shared || (s->owned && shards[s->index] == s));
    pc_t.shard = s;
    return s;
}

void
pc_world_stop(void)
{
    pc_lock();
    pc_stop_the_world(PyInterpreterState_Get());
}

void
pc_world_start(void)
{
    pc_start_the_world(PyInterpreterState_Get());
    pc_unlock();
}

pc_shard *
pc_shard_get(int i)
{
    return shards[i];
}

void
pc_fold_u64(uint64_t *dst, uint64_t *src, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        dst[i] += src[i];
    memset(src, 0, n * sizeof *src);
}

void
pc_shards_fold_opcodes(void)
{
    int i;
    for (i = 0; i < PC_SHARDS; i++) {
        if (shards[i] == NULL)
            continue;
        pc_fold_u64(pc_g.exec, shards[i]->exec, PC_NOPS);
        pc_fold_u64(&pc_g.pair[0][0], &shards[i]->pair[0][0], PC_NOPS * PC_NOPS);
    }
}

void
pc_shards_zero_opcodes(void)
{
    int i;
    for (i = 0; i < PC_SHARDS; i++)
        if (shards[i] != NULL) {
            memset(shards[i]->exec, 0, sizeof shards[i]->exec);
            memset(shards[i]->pair, 0, sizeof shards[i]->pair);
        }
}

int
pc_gil_off(void)
{
    PyObject *fn = PySys_GetObject("_is_gil_enabled"); /* borrowed */
    PyObject *r;
    int off;
    if (fn == NULL)
        return 0;
    r = PyObject_CallNoArgs(fn);
    if (r == NULL) {
        PyErr_Clear();
        return 0;
    }
    off = r == Py_False;
    Py_DECREF(r);
    return off;
}

void
pc_shards_after_fork(void)
{
    int i;
    memset(&lock, 0, sizeof lock);
    memset(&api, 0, sizeof api);
    pc_t.locked = 0;
    api_depth = 0;
    for (i = 0; i < PC_SHARDS; i++)
        if (shards[i] != NULL)
            shards[i]->owned = shards[i] == pc_t.shard;
}

#endif /* PC_FREE_THREADING */
