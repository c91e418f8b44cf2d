/* mlspace's native directory walker (Linux): getdents64 + fstatat on directory descriptors,
 * in N threads that never hold the GIL, written straight into the snapshot's columns.
 *
 * Why: a warm-cache scan in Python is bound by the interpreter (about 1.3x du at best with
 * two processes); the kernel work (one getdents64 per few hundred names, one fstatat per
 * entry) parallelises across threads, and columns written here need no merge or copy.
 *
 * The rules are the Python walker's (mlspace/scan/walker.py, the reference):
 *  - an entry is recorded with lstat's view of it: links are never followed, and a
 *    directory is listed only while on the root's filesystem (unless cross_filesystems);
 *  - each listed directory's children are one contiguous range of entries, in the order the
 *    kernel lists them, and the directory is one row (its entry, first child, count, st_dev);
 *  - a name that cannot be stat-ed is left out with an error, a directory that cannot be
 *    opened is kept as an entry with an error, a listing that fails half way keeps what it
 *    read;
 *  - a folder whose path would exceed MAX_PATH_BYTES is recorded, not listed (a bound on
 *    hostile depths: the paths held for pending folders stay bounded).
 * Where this walker is stricter: a folder is opened with O_NOFOLLOW and must still be the
 * one its parent listed (same device and inode), or it is not listed ("replaced during
 * the scan"), so a folder swapped for a link mid-walk never leads elsewhere.
 *
 * Entry order across folders is the order threads finish them (rows are appended under one
 * lock, together with their children), so entries [0, n) are complete at any time.
 *
 * Widths: sizes, blocks, mtime (whole seconds) and inodes start as uint32, owners as uint16,
 * and each column is widened in place (to uint32, or 64 bits) the first time a value does
 * not fit; links are uint16 (capped).
 *
 * Hard links are counted once: at the end, among the scanned paths to one (device, inode)
 * of a non-directory, the one with the smallest (folder path, name) counts. That choice
 * does not depend on which thread came first, so two scans of one tree agree (the Python
 * build applies the same rule).
 */
#define PY_SSIZE_T_CLEAN
#define _GNU_SOURCE
#include <Python.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define MAX_PATH_BYTES (32 * 1024)
#define GETDENTS_BUFFER (64 * 1024)
#define NLINK_CAP 0xFFFF
#define KIND_DIR (S_IFDIR >> 12)
#define OPEN_FLAGS (O_RDONLY | O_DIRECTORY | O_CLOEXEC)

/* Error codes of our own, beside errno values (the Python side words them). */
#define ERR_REPLACED (-1)    /* the folder is no longer the one its parent listed */
#define ERR_TOO_DEEP (-2)    /* its path would exceed MAX_PATH_BYTES */

struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/* ------------------------------------------------------------------ growable buffers */

typedef struct {
    char *data;
    size_t len;   /* bytes used */
    size_t cap;   /* bytes allocated */
} Buf;

static int buf_reserve(Buf *b, size_t more) {
    if (b->len + more <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + more)
        cap += cap / 2 + 4096;
    char *data = realloc(b->data, cap);
    if (!data)
        return -1;
    b->data = data;
    b->cap = cap;
    return 0;
}

static int buf_append(Buf *b, const void *src, size_t n) {
    if (buf_reserve(b, n))
        return -1;
    memcpy(b->data + b->len, src, n);
    b->len += n;
    return 0;
}

static void buf_shrink(Buf *b) {
    if (b->len && b->len < b->cap) {
        char *data = realloc(b->data, b->len);
        if (data) {
            b->data = data;
            b->cap = b->len;
        }
    }
}

/* A column kept in the narrowest width (2, 4 or 8 bytes, never below its `least`) that has
 * held every value so far: values are appended as int64 (an inode above 2**63 reads as
 * negative and so goes to 8 bytes, whose bits are its uint64 value) and the whole column is
 * widened in place, last element first, the first time one does not fit. Why: most sizes,
 * inodes and owners fit in 32 or 16 bits, and every byte per entry is a megabyte at 1M. */
typedef struct {
    Buf buf;
    int width;  /* bytes per value now */
} Col;

static int width_for(int64_t v) {
    if (v >= 0 && v <= (int64_t)UINT16_MAX)
        return 2;
    if (v >= 0 && v <= (int64_t)UINT32_MAX)
        return 4;
    return 8;
}

static int64_t col_get(const Col *c, size_t i) {
    switch (c->width) {
    case 2:
        return ((const uint16_t *)c->buf.data)[i];
    case 4:
        return ((const uint32_t *)c->buf.data)[i];
    default:
        return ((const int64_t *)c->buf.data)[i];
    }
}

static void col_set(char *data, int width, size_t i, int64_t v) {
    switch (width) {
    case 2:
        ((uint16_t *)data)[i] = (uint16_t)v;
        break;
    case 4:
        ((uint32_t *)data)[i] = (uint32_t)v;
        break;
    default:
        ((int64_t *)data)[i] = v;
    }
}

/* Called with out_lock held (or before the walk starts). */
static int col_append(Col *c, const int64_t *values, size_t n) {
    int need = c->width;
    for (size_t i = 0; i < n && need < 8; i++) {
        int w = width_for(values[i]);
        if (w > need)
            need = w;
    }
    size_t have = c->buf.len / (size_t)c->width;
    if (need > c->width) {
        if (buf_reserve(&c->buf, have * (size_t)(need - c->width)))
            return -1;
        for (size_t j = have; j-- > 0;)
            col_set(c->buf.data, need, j, col_get(c, j));
        c->width = need;
        c->buf.len = have * (size_t)need;
    }
    if (buf_reserve(&c->buf, n * (size_t)c->width))
        return -1;
    for (size_t i = 0; i < n; i++)
        col_set(c->buf.data, c->width, have + i, values[i]);
    c->buf.len += n * (size_t)c->width;
    return 0;
}

/* ------------------------------------------------------------------ work and results */

typedef struct {
    char *path;
    size_t len;
    int64_t entry;      /* the folder's own entry */
    uint64_t dev, ino;  /* what its parent's listing saw */
    uint64_t root_dev;
    int follow;         /* a root: the user named it, a link to it is followed */
} Task;

typedef struct {
    char *path;
    int code;  /* errno, or ERR_* */
} WalkError;

typedef struct {
    int64_t entry, row;
    size_t name_off;
} Link;

/* What one thread gathers about one folder before it is written out under the lock. */
typedef struct {
    Buf names;                /* NUL after each */
    Buf name_off;             /* size_t per entry */
    Buf kind, size, blocks, mtime, ino, nlink, uid, dev;
    size_t count;
} Scratch;

typedef struct {
    PyObject_HEAD
    /* settings */
    int threads;
    int cross_filesystems;
    int nice;                 /* the threads' niceness (Linux sets it per thread) */
    PyObject *exclude;  /* callable(prefix: str, name: str) -> bool, or NULL */

    /* work */
    pthread_mutex_t work_lock;
    pthread_cond_t work_cv;   /* work arrived, or all done */
    Task **stack;
    size_t stack_len, stack_cap;
    int busy;                 /* threads listing a folder now */
    int done;
    volatile int cancel;
    pthread_t *tids;
    int started, joined;

    /* results, under out_lock */
    pthread_mutex_t out_lock;
    Buf names, kind, nlink;
    Col size, blocks, mtime, ino, uid;  /* each as narrow as its values allow */
    size_t entries;
    Buf rows;                 /* int64 entry, first, count, dev per listed folder */
    Buf row_paths;            /* char* per row (owned) */
    Buf row_lens;             /* size_t per row */
    Buf links;                /* Link per hard-linked non-directory */
    Buf errors;               /* WalkError */
    Buf other_fs;             /* char* (owned) */
    uint64_t blocks_total;
    int64_t last_row;
    int failed;               /* out of memory: the scan stops, Python raises */
} Walk;

/* The narrowest widths each column starts at: blocks and mtime never below 32 bits (the
 * snapshot keeps them as uint32 or int64), owners from 16. */
static void col_widths(Walk *w) {
    w->size.width = w->blocks.width = w->mtime.width = w->ino.width = 4;
    w->uid.width = 2;
}

/* Values [from, from + count) of a column as int64 bytes (for a consumer during the walk). */
static PyObject *col_wide_bytes(const Col *c, size_t from, size_t count) {
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(count * 8));
    if (out) {
        int64_t *values = (int64_t *)PyBytes_AS_STRING(out);
        for (size_t i = 0; i < count; i++)
            values[i] = col_get(c, from + i);
    }
    return out;
}

/* ------------------------------------------------------------------ helpers */

static Task *task_new(const char *path, size_t len, int64_t entry, uint64_t dev, uint64_t ino,
                      uint64_t root_dev, int follow) {
    Task *t = malloc(sizeof(Task));
    if (!t)
        return NULL;
    t->path = malloc(len + 1);
    if (!t->path) {
        free(t);
        return NULL;
    }
    memcpy(t->path, path, len);
    t->path[len] = 0;
    t->len = len;
    t->entry = entry;
    t->dev = dev;
    t->ino = ino;
    t->root_dev = root_dev;
    t->follow = follow;
    return t;
}

static void task_free(Task *t) {
    if (t) {
        free(t->path);
        free(t);
    }
}

/* Called with out_lock held. */
static void add_error_locked(Walk *w, const char *path, size_t len, int code) {
    WalkError e;
    e.path = malloc(len + 1);
    if (!e.path) {
        w->failed = 1;
        return;
    }
    memcpy(e.path, path, len);
    e.path[len] = 0;
    e.code = code;
    if (buf_append(&w->errors, &e, sizeof e)) {
        free(e.path);
        w->failed = 1;
    }
}

static void add_error(Walk *w, const char *path, size_t len, int code) {
    pthread_mutex_lock(&w->out_lock);
    add_error_locked(w, path, len, code);
    pthread_mutex_unlock(&w->out_lock);
}

/* Open a folder for listing. Paths longer than the kernel takes in one call are opened in
 * hops of under PATH_MAX bytes, each relative to the last. */
static int open_folder(const Task *t) {
    int flags = OPEN_FLAGS | (t->follow ? 0 : O_NOFOLLOW);
    if (t->len < PATH_MAX)
        return open(t->path, flags);
    const char *p = t->path;
    const char *end = t->path + t->len;
    int fd = open(*p == '/' ? "/" : ".", OPEN_FLAGS);
    if (fd < 0)
        return -1;
    while (*p == '/')
        p++;
    char part[PATH_MAX];
    while (p < end) {
        /* the longest run of whole components under PATH_MAX */
        const char *cut = p;
        const char *q = p;
        while (q < end) {
            const char *slash = memchr(q, '/', (size_t)(end - q));
            const char *stop = slash ? slash : end;
            if ((size_t)(stop - p) >= PATH_MAX - 1)
                break;
            cut = stop;
            q = slash ? slash + 1 : end;
        }
        if (cut == p) {  /* one component longer than PATH_MAX: impossible on Linux */
            close(fd);
            errno = ENAMETOOLONG;
            return -1;
        }
        size_t n = (size_t)(cut - p);
        memcpy(part, p, n);
        part[n] = 0;
        int last = cut >= end;
        int next = openat(fd, part, last ? flags : OPEN_FLAGS);
        int saved = errno;
        close(fd);
        if (next < 0) {
            errno = saved;
            return -1;
        }
        fd = next;
        p = cut;
        while (p < end && *p == '/')
            p++;
    }
    return fd;
}

static void scratch_reset(Scratch *s) {
    s->names.len = s->name_off.len = 0;
    s->kind.len = s->size.len = s->blocks.len = s->mtime.len = 0;
    s->ino.len = s->nlink.len = s->uid.len = s->dev.len = 0;
    s->count = 0;
}

static void scratch_free(Scratch *s) {
    Buf *all[] = {&s->names, &s->name_off, &s->kind, &s->size, &s->blocks, &s->mtime,
                  &s->ino, &s->nlink, &s->uid, &s->dev};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        free(all[i]->data);
}

static int scratch_add(Scratch *s, const char *name, size_t name_len, const struct stat *st) {
    size_t off = s->names.len;
    uint8_t kind = (uint8_t)((st->st_mode & S_IFMT) >> 12);
    int64_t size = (int64_t)st->st_size;
    int64_t blocks = (int64_t)st->st_blocks;
    int64_t mtime = (int64_t)st->st_mtim.tv_sec;
    int64_t ino = (int64_t)st->st_ino;  /* the bits of the uint64 */
    uint16_t nlink = st->st_nlink > NLINK_CAP ? NLINK_CAP : (uint16_t)st->st_nlink;
    int64_t uid = (int64_t)st->st_uid;
    uint64_t dev = (uint64_t)st->st_dev;
    if (buf_append(&s->names, name, name_len) || buf_append(&s->names, "", 1)
        || buf_append(&s->name_off, &off, sizeof off) || buf_append(&s->kind, &kind, 1)
        || buf_append(&s->size, &size, 8) || buf_append(&s->blocks, &blocks, 8)
        || buf_append(&s->mtime, &mtime, 8) || buf_append(&s->ino, &ino, 8)
        || buf_append(&s->nlink, &nlink, 2) || buf_append(&s->uid, &uid, 8)
        || buf_append(&s->dev, &dev, 8))
        return -1;
    s->count++;
    return 0;
}

static void push_tasks(Walk *w, Task **tasks, size_t n) {
    if (!n)
        return;
    pthread_mutex_lock(&w->work_lock);
    if (w->stack_len + n > w->stack_cap) {
        size_t cap = w->stack_cap ? w->stack_cap : 256;
        while (cap < w->stack_len + n)
            cap *= 2;
        Task **stack = realloc(w->stack, cap * sizeof(Task *));
        if (!stack) {
            pthread_mutex_unlock(&w->work_lock);
            for (size_t i = 0; i < n; i++)
                task_free(tasks[i]);
            pthread_mutex_lock(&w->out_lock);
            w->failed = 1;
            pthread_mutex_unlock(&w->out_lock);
            w->cancel = 1;
            return;
        }
        w->stack = stack;
        w->stack_cap = cap;
    }
    /* reversed, so the first subfolder is listed next (depth first, as the Python walker) */
    for (size_t i = n; i-- > 0;)
        w->stack[w->stack_len++] = tasks[i];
    pthread_cond_broadcast(&w->work_cv);
    pthread_mutex_unlock(&w->work_lock);
}

/* Ask Python which of the names gathered since `from` are excluded; drop them. The GIL is
 * taken once per batch of names, only when the user gave exclude patterns. */
static void drop_excluded(Walk *w, const Task *t, const char **names, size_t *lens, size_t *n) {
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject *prefix = NULL;
    if (t->len && t->path[t->len - 1] == '/')
        prefix = PyUnicode_DecodeFSDefaultAndSize(t->path, (Py_ssize_t)t->len);
    else {
        char *joined = malloc(t->len + 2);
        if (joined) {
            memcpy(joined, t->path, t->len);
            joined[t->len] = '/';
            joined[t->len + 1] = 0;
            prefix = PyUnicode_DecodeFSDefaultAndSize(joined, (Py_ssize_t)t->len + 1);
            free(joined);
        }
    }
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++) {
        int drop = 0;
        if (prefix) {
            PyObject *name = PyUnicode_DecodeFSDefaultAndSize(names[i], (Py_ssize_t)lens[i]);
            PyObject *hit = name ? PyObject_CallFunctionObjArgs(w->exclude, prefix, name, NULL)
                                 : NULL;
            if (hit)
                drop = PyObject_IsTrue(hit) == 1;
            else
                PyErr_WriteUnraisable(w->exclude);
            Py_XDECREF(hit);
            Py_XDECREF(name);
        }
        if (!drop) {
            names[kept] = names[i];
            lens[kept] = lens[i];
            kept++;
        }
    }
    Py_XDECREF(prefix);
    PyGILState_Release(gil);
    *n = kept;
}

/* Write one listed folder and its children out, and queue its subfolders. */
static void write_out(Walk *w, Task *t, Scratch *s, uint64_t dir_dev) {
    size_t n = s->count;
    const size_t *offs = (const size_t *)s->name_off.data;
    const uint8_t *kind = (const uint8_t *)s->kind.data;
    const uint64_t *dev = (const uint64_t *)s->dev.data;
    const uint16_t *nlink = (const uint16_t *)s->nlink.data;
    const int64_t *blocks = (const int64_t *)s->blocks.data;
    size_t prefix_len = t->len + (t->len && t->path[t->len - 1] == '/' ? 0 : 1);

    /* the subfolders' tasks are made before taking the lock (their paths are copies) */
    Task **subs = NULL;
    size_t n_subs = 0;
    for (size_t i = 0; i < n; i++)
        if (kind[i] == KIND_DIR && (w->cross_filesystems || dev[i] == t->root_dev))
            n_subs++;
    if (n_subs && !(subs = malloc(n_subs * sizeof(Task *))))
        goto oom;
    n_subs = 0;

    pthread_mutex_lock(&w->out_lock);
    int64_t first = (int64_t)w->entries;
    int64_t row = (int64_t)(w->rows.len / (4 * sizeof(int64_t)));
    uint64_t block_sum = 0;
    for (size_t i = 0; i < n; i++)
        block_sum += (uint64_t)blocks[i];
    int ok = !buf_append(&w->names, s->names.data, s->names.len)
        && !buf_append(&w->kind, s->kind.data, n)
        && !col_append(&w->size, (const int64_t *)s->size.data, n)
        && !col_append(&w->blocks, blocks, n)
        && !col_append(&w->mtime, (const int64_t *)s->mtime.data, n)
        && !col_append(&w->ino, (const int64_t *)s->ino.data, n)
        && !buf_append(&w->nlink, s->nlink.data, n * 2)
        && !col_append(&w->uid, (const int64_t *)s->uid.data, n);
    int64_t row_values[4] = {t->entry, first, (int64_t)n, (int64_t)dir_dev};
    /* the path's ownership passes to the row last: on a failure before, the task keeps it */
    ok = ok && !buf_append(&w->rows, row_values, sizeof row_values)
         && !buf_append(&w->row_lens, &t->len, sizeof(size_t))
         && !buf_append(&w->row_paths, &t->path, sizeof(char *));
    if (!ok) {
        w->failed = 1;
        pthread_mutex_unlock(&w->out_lock);
        goto oom;
    }
    size_t names_base = w->names.len - s->names.len;
    for (size_t i = 0; i < n; i++) {
        if (nlink[i] > 1 && kind[i] != KIND_DIR) {
            Link link = {first + (int64_t)i, row, names_base + offs[i]};
            if (buf_append(&w->links, &link, sizeof link))
                w->failed = 1;
        }
    }
    char *held_path = t->path;  /* now owned by the row */
    t->path = NULL;
    for (size_t i = 0; i < n; i++) {
        if (kind[i] != KIND_DIR)
            continue;
        const char *name = s->names.data + offs[i];
        size_t name_len = strlen(name);
        size_t len = prefix_len + name_len;
        char stack_path[512];
        char *path = len < sizeof stack_path ? stack_path : malloc(len + 1);
        if (!path) {
            w->failed = 1;
            continue;
        }
        memcpy(path, held_path, t->len);
        if (prefix_len > t->len)
            path[t->len] = '/';
        memcpy(path + prefix_len, name, name_len);
        path[len] = 0;
        if (!w->cross_filesystems && dev[i] != t->root_dev) {
            char *copy = strdup(path);
            if (!copy || buf_append(&w->other_fs, &copy, sizeof copy)) {
                free(copy);
                w->failed = 1;
            }
        } else if (len > MAX_PATH_BYTES) {
            add_error_locked(w, path, len, ERR_TOO_DEEP);
        } else {
            const uint64_t *ino = (const uint64_t *)s->ino.data;
            Task *sub = task_new(path, len, first + (int64_t)i, dev[i], ino[i], t->root_dev, 0);
            if (sub)
                subs[n_subs++] = sub;
            else
                w->failed = 1;
        }
        if (path != stack_path)
            free(path);
    }
    w->entries += n;
    w->blocks_total += block_sum;
    w->last_row = row;
    int failed = w->failed;
    pthread_mutex_unlock(&w->out_lock);
    if (failed)
        w->cancel = 1;
    push_tasks(w, subs, n_subs);
    free(subs);
    return;
oom:
    free(subs);
    pthread_mutex_lock(&w->out_lock);
    w->failed = 1;
    pthread_mutex_unlock(&w->out_lock);
    w->cancel = 1;
}

/* List one folder: open it, check it is the one seen, read every name, stat each. */
static void list_folder(Walk *w, Task *t, Scratch *s, char *dents) {
    int fd = open_folder(t);
    if (fd < 0) {
        /* a folder now a link (O_NOFOLLOW) or a file was swapped in after it was listed */
        int code = errno;
        if (!t->follow && (code == ELOOP || code == ENOTDIR))
            code = ERR_REPLACED;
        add_error(w, t->path, t->len, code);
        return;
    }
    struct stat self;
    if (fstat(fd, &self) != 0) {
        add_error(w, t->path, t->len, errno);
        close(fd);
        return;
    }
    if ((uint64_t)self.st_dev != t->dev || (uint64_t)self.st_ino != t->ino) {
        add_error(w, t->path, t->len, ERR_REPLACED);
        close(fd);
        return;
    }
    scratch_reset(s);
    const char *names[GETDENTS_BUFFER / 19 + 1];  /* a dirent takes at least 19 bytes */
    size_t lens[GETDENTS_BUFFER / 19 + 1];
    for (;;) {
        if (w->cancel)
            break;
        long got = syscall(SYS_getdents64, fd, dents, GETDENTS_BUFFER);
        if (got < 0) {
            /* the listing failed part way (the folder was removed): keep what was read */
            add_error(w, t->path, t->len, errno);
            break;
        }
        if (got == 0)
            break;
        size_t n = 0;
        for (long pos = 0; pos < got;) {
            struct linux_dirent64 *d = (struct linux_dirent64 *)(dents + pos);
            pos += d->d_reclen;
            const char *name = d->d_name;
            if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0)))
                continue;
            names[n] = name;
            lens[n] = strlen(name);
            n++;
        }
        if (w->exclude && n)
            drop_excluded(w, t, names, lens, &n);
        for (size_t i = 0; i < n; i++) {
            struct stat st;
            if (fstatat(fd, names[i], &st, AT_SYMLINK_NOFOLLOW) != 0) {
                int code = errno;
                size_t prefix_len = t->len + (t->path[t->len - 1] == '/' ? 0 : 1);
                size_t len = prefix_len + lens[i];
                char *path = malloc(len + 1);
                if (path) {
                    memcpy(path, t->path, t->len);
                    if (prefix_len > t->len)
                        path[t->len] = '/';
                    memcpy(path + prefix_len, names[i], lens[i]);
                    path[len] = 0;
                    add_error(w, path, len, code);
                    free(path);
                }
                continue;
            }
            if (scratch_add(s, names[i], lens[i], &st)) {
                close(fd);
                pthread_mutex_lock(&w->out_lock);
                w->failed = 1;
                pthread_mutex_unlock(&w->out_lock);
                w->cancel = 1;
                return;
            }
        }
    }
    close(fd);
    /* cancelled part way: what was read is kept, as the Python walker keeps it */
    write_out(w, t, s, (uint64_t)self.st_dev);
}

static void *worker(void *arg) {
    Walk *w = arg;
    if (w->nice)  /* best effort: a thread may always lower its own priority */
        (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), w->nice);
    Scratch s;
    memset(&s, 0, sizeof s);
    char *dents = malloc(GETDENTS_BUFFER);
    if (!dents) {
        pthread_mutex_lock(&w->out_lock);
        w->failed = 1;
        pthread_mutex_unlock(&w->out_lock);
        w->cancel = 1;
        pthread_mutex_lock(&w->work_lock);
        w->done = 1;
        pthread_cond_broadcast(&w->work_cv);
        pthread_mutex_unlock(&w->work_lock);
        return NULL;
    }
    pthread_mutex_lock(&w->work_lock);
    for (;;) {
        while (!w->stack_len && w->busy && !w->cancel)
            pthread_cond_wait(&w->work_cv, &w->work_lock);
        if (w->cancel || !w->stack_len) {
            /* cancelled, or nothing left and nobody listing who could add more */
            w->done = 1;
            pthread_cond_broadcast(&w->work_cv);
            break;
        }
        Task *t = w->stack[--w->stack_len];
        w->busy++;
        pthread_mutex_unlock(&w->work_lock);
        list_folder(w, t, &s, dents);
        task_free(t);
        pthread_mutex_lock(&w->work_lock);
        w->busy--;
        if (!w->busy && !w->stack_len) {
            w->done = 1;
            pthread_cond_broadcast(&w->work_cv);
        }
    }
    pthread_mutex_unlock(&w->work_lock);
    scratch_free(&s);
    free(dents);
    return NULL;
}

/* ------------------------------------------------------------------ the Column type */

/* A finished column: memory the walk filled, handed to Python without a copy. */
typedef struct {
    PyObject_HEAD
    char *data;
    Py_ssize_t len;
    int exports;
} Column;

static void column_dealloc(Column *self) {
    free(self->data);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int column_getbuffer(Column *self, Py_buffer *view, int flags) {
    int rc = PyBuffer_FillInfo(view, (PyObject *)self, self->data ? self->data : "", self->len,
                               1, flags);
    if (rc == 0)
        self->exports++;
    return rc;
}

static void column_releasebuffer(Column *self, Py_buffer *view) {
    (void)view;
    self->exports--;
}

static PyBufferProcs column_as_buffer = {
    (getbufferproc)column_getbuffer,
    (releasebufferproc)column_releasebuffer,
};

static PyTypeObject ColumnType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "mlspace.scan._walker.Column",
    .tp_basicsize = sizeof(Column),
    .tp_dealloc = (destructor)column_dealloc,
    .tp_as_buffer = &column_as_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A read-only block of memory the walk filled (a snapshot column).",
};

/* The buffer becomes the column's; the Buf is emptied. */
static PyObject *column_from(Buf *b) {
    buf_shrink(b);
    Column *c = PyObject_New(Column, &ColumnType);
    if (!c)
        return NULL;
    c->data = b->data;
    c->len = (Py_ssize_t)b->len;
    c->exports = 0;
    b->data = NULL;
    b->len = b->cap = 0;
    return (PyObject *)c;
}

/* ------------------------------------------------------------------ the Walk type */

/* Ask the threads to stop: they look between folders and between getdents64 batches. */
static void request_cancel(Walk *w) {
    w->cancel = 1;
    pthread_mutex_lock(&w->work_lock);
    pthread_cond_broadcast(&w->work_cv);
    pthread_mutex_unlock(&w->work_lock);
}

static void walk_join(Walk *w) {
    if (!w->started || w->joined)
        return;
    Py_BEGIN_ALLOW_THREADS
    for (int i = 0; i < w->threads; i++)
        pthread_join(w->tids[i], NULL);
    Py_END_ALLOW_THREADS
    w->joined = 1;
}

static void walk_stop(Walk *w) {
    if (!w->started || w->joined)
        return;
    request_cancel(w);
    walk_join(w);
}

static void walk_free_results(Walk *w) {
    char **paths = (char **)w->row_paths.data;
    for (size_t i = 0; i < w->row_paths.len / sizeof(char *); i++)
        free(paths[i]);
    WalkError *errors = (WalkError *)w->errors.data;
    for (size_t i = 0; i < w->errors.len / sizeof(WalkError); i++)
        free(errors[i].path);
    char **other = (char **)w->other_fs.data;
    for (size_t i = 0; i < w->other_fs.len / sizeof(char *); i++)
        free(other[i]);
    Buf *all[] = {&w->names, &w->kind, &w->size.buf, &w->blocks.buf, &w->mtime.buf,
                  &w->ino.buf, &w->nlink, &w->uid.buf, &w->rows, &w->row_paths, &w->row_lens,
                  &w->links, &w->errors, &w->other_fs};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        free(all[i]->data);
        all[i]->data = NULL;
        all[i]->len = all[i]->cap = 0;
    }
    for (size_t i = 0; i < w->stack_len; i++)
        task_free(w->stack[i]);
    w->stack_len = 0;
    col_widths(w);
}

static void walk_dealloc(Walk *w) {
    walk_stop(w);
    walk_free_results(w);
    free(w->stack);
    free(w->tids);
    Py_XDECREF(w->exclude);
    pthread_mutex_destroy(&w->work_lock);
    pthread_mutex_destroy(&w->out_lock);
    pthread_cond_destroy(&w->work_cv);
    Py_TYPE(w)->tp_free((PyObject *)w);
}

static int walk_init(Walk *w, PyObject *args, PyObject *kwds) {
    static char *keywords[] = {"threads", "cross_filesystems", "exclude", "nice", NULL};
    int threads = 2, cross = 0, nice = 0;
    PyObject *exclude = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|ipOi", keywords, &threads, &cross, &exclude,
                                     &nice))
        return -1;
    if (nice < 0 || nice > 19) {
        PyErr_SetString(PyExc_ValueError, "nice must be between 0 and 19");
        return -1;
    }
    w->nice = nice;
    if (w->started) {
        PyErr_SetString(PyExc_RuntimeError, "a walk is set up once");
        return -1;
    }
    if (threads < 1 || threads > 256) {
        PyErr_SetString(PyExc_ValueError, "threads must be between 1 and 256");
        return -1;
    }
    w->threads = threads;
    w->cross_filesystems = cross;
    if (exclude != Py_None) {
        if (!PyCallable_Check(exclude)) {
            PyErr_SetString(PyExc_TypeError, "exclude must be callable or None");
            return -1;
        }
        Py_INCREF(exclude);
        w->exclude = exclude;
    }
    w->last_row = -1;
    return 0;
}

static PyObject *walk_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    (void)args;
    (void)kwds;
    Walk *w = (Walk *)type->tp_alloc(type, 0);
    if (!w)
        return NULL;
    col_widths(w);
    pthread_mutex_init(&w->work_lock, NULL);
    pthread_mutex_init(&w->out_lock, NULL);
    pthread_cond_init(&w->work_cv, NULL);
    return (PyObject *)w;
}

/* add_root(path: bytes, kind, size, blocks, mtime, ino, nlink, uid, list: bool, dev)
 * Records a root entry (as Python stat-ed it, following a link the user named) and, for a
 * folder, queues its listing. Roots come first, before start(). */
static PyObject *walk_add_root(Walk *w, PyObject *args) {
    const char *path;
    Py_ssize_t len;
    unsigned int kind;
    long long size, blocks, mtime;
    unsigned long long ino, dev;
    unsigned int nlink, uid;
    int list;
    if (!PyArg_ParseTuple(args, "y#ILLLKIIpK", &path, &len, &kind, &size, &blocks, &mtime, &ino,
                          &nlink, &uid, &list, &dev))
        return NULL;
    if (w->started) {
        PyErr_SetString(PyExc_RuntimeError, "roots are added before the walk starts");
        return NULL;
    }
    uint8_t k = (uint8_t)kind;
    int64_t sz = size, bl = blocks, mt = mtime, in = (int64_t)ino, u = uid;
    uint16_t nl = nlink > NLINK_CAP ? NLINK_CAP : (uint16_t)nlink;
    int64_t entry = (int64_t)w->entries;
    if (buf_append(&w->names, path, (size_t)len) || buf_append(&w->names, "", 1)
        || buf_append(&w->kind, &k, 1) || col_append(&w->size, &sz, 1)
        || col_append(&w->blocks, &bl, 1) || col_append(&w->mtime, &mt, 1)
        || col_append(&w->ino, &in, 1) || buf_append(&w->nlink, &nl, 2)
        || col_append(&w->uid, &u, 1))
        return PyErr_NoMemory();
    w->entries++;
    w->blocks_total += (uint64_t)blocks;
    if (list) {
        Task *t = task_new(path, (size_t)len, entry, dev, ino, dev, 1);
        if (!t)
            return PyErr_NoMemory();
        if (w->stack_len == w->stack_cap) {
            size_t cap = w->stack_cap ? w->stack_cap * 2 : 16;
            Task **stack = realloc(w->stack, cap * sizeof(Task *));
            if (!stack) {
                task_free(t);
                return PyErr_NoMemory();
            }
            w->stack = stack;
            w->stack_cap = cap;
        }
        /* roots are listed in the order given: the stack is popped from the end */
        memmove(w->stack + 1, w->stack, w->stack_len * sizeof(Task *));
        w->stack[0] = t;
        w->stack_len++;
    }
    Py_RETURN_NONE;
}

static PyObject *walk_start(Walk *w, PyObject *unused) {
    (void)unused;
    if (w->started) {
        PyErr_SetString(PyExc_RuntimeError, "a walk starts once");
        return NULL;
    }
    w->tids = calloc((size_t)w->threads, sizeof(pthread_t));
    if (!w->tids)
        return PyErr_NoMemory();
    w->started = 1;
    for (int i = 0; i < w->threads; i++) {
        int rc = pthread_create(&w->tids[i], NULL, worker, w);
        if (rc != 0) {
            w->threads = i;  /* join only those that run */
            if (i == 0) {
                w->joined = 1;
                w->done = 1;
                errno = rc;
                return PyErr_SetFromErrno(PyExc_OSError);
            }
            break;
        }
    }
    Py_RETURN_NONE;
}

/* wait(seconds) -> bool: True once every thread has finished. Releases the GIL. */
static PyObject *walk_wait(Walk *w, PyObject *arg) {
    double seconds = PyFloat_AsDouble(arg);
    if (seconds == -1.0 && PyErr_Occurred())
        return NULL;
    if (!w->started)
        Py_RETURN_TRUE;
    int done;
    Py_BEGIN_ALLOW_THREADS
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    long long ns = (long long)(seconds * 1e9) + until.tv_nsec;
    until.tv_sec += (time_t)(ns / 1000000000LL);
    until.tv_nsec = (long)(ns % 1000000000LL);
    pthread_mutex_lock(&w->work_lock);
    while (!w->done) {
        if (pthread_cond_timedwait(&w->work_cv, &w->work_lock, &until) == ETIMEDOUT)
            break;
    }
    done = w->done;
    pthread_mutex_unlock(&w->work_lock);
    Py_END_ALLOW_THREADS
    if (done)
        walk_join(w);
    return PyBool_FromLong(done);
}

static PyObject *walk_cancel(Walk *w, PyObject *unused) {
    (void)unused;
    request_cancel(w);
    Py_RETURN_NONE;
}

/* progress() -> (entries, blocks, errors, last folder path as bytes, threads listing now) */
static PyObject *walk_progress(Walk *w, PyObject *unused) {
    (void)unused;
    PyObject *last;
    unsigned long long entries, blocks;
    Py_ssize_t errors;
    pthread_mutex_lock(&w->out_lock);
    entries = w->entries;
    blocks = w->blocks_total;
    errors = (Py_ssize_t)(w->errors.len / sizeof(WalkError));
    if (w->last_row >= 0) {
        char *path = ((char **)w->row_paths.data)[w->last_row];
        size_t len = ((size_t *)w->row_lens.data)[w->last_row];
        last = PyBytes_FromStringAndSize(path, (Py_ssize_t)len);
    } else {
        last = PyBytes_FromStringAndSize("", 0);
    }
    pthread_mutex_unlock(&w->out_lock);
    pthread_mutex_lock(&w->work_lock);
    int busy = w->busy;
    pthread_mutex_unlock(&w->work_lock);
    if (!last)
        return NULL;
    return Py_BuildValue("KKnNi", entries, blocks, errors, last, busy);
}

/* since(entries, rows, name_bytes) -> dict of what was written after that mark: names
 * (bytes), kind, size, blocks (as int64), rows (int64 entry, first, count, dev), folder
 * paths, and the new mark. For a consumer that works while the walk goes on. */
static PyObject *walk_since(Walk *w, PyObject *args) {
    unsigned long long from_entry, from_row, from_name;
    if (!PyArg_ParseTuple(args, "KKK", &from_entry, &from_row, &from_name))
        return NULL;
    pthread_mutex_lock(&w->out_lock);
    size_t n = w->entries, rows = w->row_paths.len / sizeof(char *), names = w->names.len;
    if (from_entry > n || from_row > rows || from_name > names) {
        pthread_mutex_unlock(&w->out_lock);
        PyErr_SetString(PyExc_ValueError, "mark past the end of the walk");
        return NULL;
    }
    size_t count = n - from_entry;
    PyObject *names_b = PyBytes_FromStringAndSize(w->names.data + from_name,
                                                  (Py_ssize_t)(names - from_name));
    PyObject *kind_b = PyBytes_FromStringAndSize(w->kind.data + from_entry, (Py_ssize_t)count);
    PyObject *size_b = col_wide_bytes(&w->size, from_entry, count);
    PyObject *blocks_b = col_wide_bytes(&w->blocks, from_entry, count);
    PyObject *rows_b = PyBytes_FromStringAndSize(
        w->rows.data + from_row * 4 * sizeof(int64_t),
        (Py_ssize_t)((rows - from_row) * 4 * sizeof(int64_t)));
    PyObject *paths = PyList_New((Py_ssize_t)(rows - from_row));
    if (paths) {
        for (size_t r = from_row; r < rows; r++) {
            PyObject *p = PyUnicode_DecodeFSDefaultAndSize(((char **)w->row_paths.data)[r],
                                                          (Py_ssize_t)((size_t *)w->row_lens.data)[r]);
            if (!p) {
                Py_CLEAR(paths);
                break;
            }
            PyList_SET_ITEM(paths, (Py_ssize_t)(r - from_row), p);
        }
    }
    pthread_mutex_unlock(&w->out_lock);
    PyObject *out = NULL;
    if (names_b && kind_b && size_b && blocks_b && rows_b && paths)
        out = Py_BuildValue("{sOsOsOsOsOsOs(KKK)}", "names", names_b, "kind", kind_b, "size",
                            size_b, "blocks", blocks_b, "rows", rows_b, "paths", paths, "mark",
                            (unsigned long long)n, (unsigned long long)rows,
                            (unsigned long long)names);
    Py_XDECREF(names_b);
    Py_XDECREF(kind_b);
    Py_XDECREF(size_b);
    Py_XDECREF(blocks_b);
    Py_XDECREF(rows_b);
    Py_XDECREF(paths);
    return out;
}

/* Sort order of hard links: device, inode, then folder path and name (see the top). */
static Walk *sorting_walk;

static int link_order(const void *a, const void *b) {
    const Link *x = a, *y = b;
    const int64_t *rows = (const int64_t *)sorting_walk->rows.data;
    uint64_t dx = (uint64_t)rows[x->row * 4 + 3], dy = (uint64_t)rows[y->row * 4 + 3];
    if (dx != dy)
        return dx < dy ? -1 : 1;
    uint64_t ix = (uint64_t)col_get(&sorting_walk->ino, (size_t)x->entry);
    uint64_t iy = (uint64_t)col_get(&sorting_walk->ino, (size_t)y->entry);
    if (ix != iy)
        return ix < iy ? -1 : 1;
    if (x->row != y->row) {
        char **paths = (char **)sorting_walk->row_paths.data;
        size_t *lens = (size_t *)sorting_walk->row_lens.data;
        size_t lx = lens[x->row], ly = lens[y->row];
        int c = memcmp(paths[x->row], paths[y->row], lx < ly ? lx : ly);
        if (c)
            return c;
        if (lx != ly)
            return lx < ly ? -1 : 1;
    }
    const unsigned char *nx = (const unsigned char *)sorting_walk->names.data + x->name_off;
    const unsigned char *ny = (const unsigned char *)sorting_walk->names.data + y->name_off;
    return strcmp((const char *)nx, (const char *)ny);
}

static pthread_mutex_t sort_lock = PTHREAD_MUTEX_INITIALIZER;

/* Each folder row's own share of its subtree's totals: itself, plus its children that are
 * not listed folders (a listed folder brings its own row's totals, added up the tree in
 * Python, per row). One pass over the entries, no entry-sized temporary but a bitmap. */
static int row_totals(Walk *w, const uint8_t *counted, Buf out[5]) {
    size_t n_rows = w->rows.len / (4 * sizeof(int64_t));
    const int64_t *rows = (const int64_t *)w->rows.data;
    uint8_t *listed = calloc(w->entries / 8 + 1, 1);
    if (!listed)
        return -1;
    for (size_t r = 0; r < n_rows; r++)
        listed[rows[r * 4] / 8] |= (uint8_t)(1u << (rows[r * 4] % 8));
    for (int k = 0; k < 5; k++) {
        if (buf_reserve(&out[k], n_rows ? n_rows * 8 : 8)) {
            free(listed);
            return -1;
        }
        out[k].len = n_rows * 8;
    }
    int64_t *disk = (int64_t *)out[0].data, *apparent = (int64_t *)out[1].data;
    int64_t *files = (int64_t *)out[2].data, *dirs = (int64_t *)out[3].data;
    int64_t *newest = (int64_t *)out[4].data;
    const uint8_t *kind = (const uint8_t *)w->kind.data;
#define BLOCKS(i) col_get(&w->blocks, (size_t)(i))
#define MTIME(i) col_get(&w->mtime, (size_t)(i))
    for (size_t r = 0; r < n_rows; r++) {
        int64_t e = rows[r * 4], first = rows[r * 4 + 1], count = rows[r * 4 + 2];
        int64_t d = counted[e] ? BLOCKS(e) * 512 : 0, a = counted[e] ? col_get(&w->size, (size_t)e) : 0;
        int64_t nf = kind[e] != KIND_DIR, nd = kind[e] == KIND_DIR, m = MTIME(e);
        for (int64_t c = first; c < first + count; c++) {
            int64_t t = MTIME(c);
            if (t > m)
                m = t;
            if (listed[c / 8] & (1u << (c % 8)))
                continue;
            if (counted[c]) {
                d += BLOCKS(c) * 512;
                a += col_get(&w->size, (size_t)c);
            }
            nf += kind[c] != KIND_DIR;
            nd += kind[c] == KIND_DIR;
        }
        disk[r] = d;
        apparent[r] = a;
        files[r] = nf;
        dirs[r] = nd;
        newest[r] = m;
    }
#undef BLOCKS
#undef MTIME
    free(listed);
    return 0;
}

/* finish() -> dict: the columns (Column objects), widths, the folder table, folder paths,
 * errors as (path, errno or code) and the other filesystems' folders, and whether the walk
 * was cancelled. Waits for the threads. The walk is emptied. */
static PyObject *walk_finish(Walk *w, PyObject *unused) {
    (void)unused;
    walk_join(w);
    if (w->failed)
        return PyErr_NoMemory();
    int cancelled = w->cancel || w->stack_len;

    /* hard links: all but the first path of each inode are not counted */
    size_t n_links = w->links.len / sizeof(Link);
    Buf counted = {0};
    if (buf_reserve(&counted, w->entries ? w->entries : 1))
        return PyErr_NoMemory();
    memset(counted.data, 1, w->entries);
    counted.len = w->entries;
    if (n_links > 1) {
        Link *links = (Link *)w->links.data;
        Py_BEGIN_ALLOW_THREADS
        pthread_mutex_lock(&sort_lock);
        sorting_walk = w;
        qsort(links, n_links, sizeof(Link), link_order);
        sorting_walk = NULL;
        pthread_mutex_unlock(&sort_lock);
        const int64_t *rows = (const int64_t *)w->rows.data;
        for (size_t i = 1; i < n_links; i++) {
            const Link *a = &links[i - 1], *b = &links[i];
            if (rows[a->row * 4 + 3] == rows[b->row * 4 + 3] && col_get(&w->ino, (size_t)a->entry) == col_get(&w->ino, (size_t)b->entry))
                counted.data[b->entry] = 0;
        }
        Py_END_ALLOW_THREADS
    }

    Buf own[5] = {{0}};
    int own_failed;
    Py_BEGIN_ALLOW_THREADS
    own_failed = row_totals(w, (const uint8_t *)counted.data, own);
    Py_END_ALLOW_THREADS
    if (own_failed) {
        for (int k = 0; k < 5; k++)
            free(own[k].data);
        free(counted.data);
        return PyErr_NoMemory();
    }
    PyObject *own_totals = Py_BuildValue("{sNsNsNsNsN}", "disk", column_from(&own[0]),
                                         "apparent", column_from(&own[1]), "files",
                                         column_from(&own[2]), "dirs", column_from(&own[3]),
                                         "newest", column_from(&own[4]));
    size_t n_rows = w->rows.len / (4 * sizeof(int64_t));
    PyObject *paths = own_totals ? PyList_New((Py_ssize_t)n_rows) : NULL;
    if (!paths)
        goto fail;
    for (size_t r = 0; r < n_rows; r++) {
        PyObject *p = PyUnicode_DecodeFSDefaultAndSize(((char **)w->row_paths.data)[r],
                                                      (Py_ssize_t)((size_t *)w->row_lens.data)[r]);
        if (!p)
            goto fail;
        PyList_SET_ITEM(paths, (Py_ssize_t)r, p);
    }
    size_t n_errors = w->errors.len / sizeof(WalkError);
    PyObject *errors = PyList_New((Py_ssize_t)n_errors);
    if (!errors)
        goto fail;
    for (size_t i = 0; i < n_errors; i++) {
        WalkError *e = &((WalkError *)w->errors.data)[i];
        PyObject *item = Py_BuildValue("(Ni)", PyUnicode_DecodeFSDefault(e->path), e->code);
        if (!item) {
            Py_DECREF(errors);
            goto fail;
        }
        PyList_SET_ITEM(errors, (Py_ssize_t)i, item);
    }
    size_t n_other = w->other_fs.len / sizeof(char *);
    PyObject *other = PyList_New((Py_ssize_t)n_other);
    if (!other) {
        Py_DECREF(errors);
        goto fail;
    }
    for (size_t i = 0; i < n_other; i++) {
        PyObject *p = PyUnicode_DecodeFSDefault(((char **)w->other_fs.data)[i]);
        if (!p) {
            Py_DECREF(errors);
            Py_DECREF(other);
            goto fail;
        }
        PyList_SET_ITEM(other, (Py_ssize_t)i, p);
    }
    PyObject *widths = Py_BuildValue("{sisisisisi}", "size", w->size.width, "blocks",
                                     w->blocks.width, "mtime", w->mtime.width, "ino",
                                     w->ino.width, "uid", w->uid.width);
    if (!widths) {
        Py_DECREF(errors);
        Py_DECREF(other);
        goto fail;
    }
    PyObject *out = Py_BuildValue(
        "{sNsNsNsNsNsNsNsNsNsNsNsNsNsNsNsOsN}",
        "names", column_from(&w->names), "kind", column_from(&w->kind),
        "size", column_from(&w->size.buf), "blocks", column_from(&w->blocks.buf),
        "mtime", column_from(&w->mtime.buf), "ino", column_from(&w->ino.buf),
        "nlink", column_from(&w->nlink), "uid", column_from(&w->uid.buf),
        "counted", column_from(&counted), "rows", column_from(&w->rows),
        "widths", widths,
        "paths", paths, "errors", errors, "other_filesystems", other,
        "entries", PyLong_FromSize_t(w->entries),
        "cancelled", cancelled ? Py_True : Py_False, "own_totals", own_totals);
    walk_free_results(w);
    return out;
fail:
    Py_XDECREF(own_totals);
    Py_XDECREF(paths);
    free(counted.data);
    return NULL;
}

static PyMethodDef walk_methods[] = {
    {"add_root", (PyCFunction)walk_add_root, METH_VARARGS,
     "add_root(path, kind, size, blocks, mtime, ino, nlink, uid, list, dev): record a root "
     "entry; a folder (list) is walked."},
    {"start", (PyCFunction)walk_start, METH_NOARGS, "Start the threads."},
    {"wait", (PyCFunction)walk_wait, METH_O,
     "wait(seconds) -> True once the walk is over (the GIL is released meanwhile)."},
    {"cancel", (PyCFunction)walk_cancel, METH_NOARGS, "Stop listing; finish() gives what was "
     "written."},
    {"progress", (PyCFunction)walk_progress, METH_NOARGS,
     "progress() -> (entries, blocks, errors, last folder (bytes), threads busy)."},
    {"since", (PyCFunction)walk_since, METH_VARARGS,
     "since(entries, rows, name_bytes) -> what was written after that mark."},
    {"finish", (PyCFunction)walk_finish, METH_NOARGS,
     "finish() -> the columns and tables, once the threads are done."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject WalkType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "mlspace.scan._walker.Walk",
    .tp_basicsize = sizeof(Walk),
    .tp_dealloc = (destructor)walk_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Walk(threads=2, cross_filesystems=False, exclude=None, nice=0): one native "
              "scan.",
    .tp_methods = walk_methods,
    .tp_init = (initproc)walk_init,
    .tp_new = walk_new,
};

static struct PyModuleDef walker_module = {
    PyModuleDef_HEAD_INIT, "_walker",
    "mlspace's native directory walker (see mlspace/scan/native.py).", -1, NULL,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__walker(void) {
    if (PyType_Ready(&ColumnType) < 0 || PyType_Ready(&WalkType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&walker_module);
    if (!m)
        return NULL;
    Py_INCREF(&WalkType);
    if (PyModule_AddObject(m, "Walk", (PyObject *)&WalkType) < 0) {
        Py_DECREF(&WalkType);
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "MAX_PATH_BYTES", MAX_PATH_BYTES);
    PyModule_AddIntConstant(m, "ERR_REPLACED", ERR_REPLACED);
    PyModule_AddIntConstant(m, "ERR_TOO_DEEP", ERR_TOO_DEEP);
    return m;
}
