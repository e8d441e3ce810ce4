/* remi_sockwriter: the room sockets' writes, made by a thread of their own.
 *
 * On loopback or on a real network, most of a frame's cost is the kernel's send
 * (TCP, IP, the device, and on loopback the receiving side as well). The event
 * loop's thread paid it for every frame of every seat. Here the loop's thread only
 * copies a frame into a queue (no system call, except a wake-up of this thread when
 * it sleeps), and one thread per Writer makes the send() calls with the interpreter
 * lock not held: the kernel's work runs on another core while the loop goes on.
 * server/socketwriter.py is the Python side, docs/operations.md says when it is on.
 *
 * A Channel is one connection: a dup() of the socket's descriptor, owned by the
 * thread, so that the descriptor number can never be reused for another socket
 * while frames for this one still wait. Per channel the order of the bytes is the
 * order of the write() calls. What the kernel does not take yet (a client that reads
 * slowly) waits in the channel and is sent when epoll says the socket can take more;
 * `backlog` is every byte taken and not yet in the kernel: write_texts() takes nothing
 * while it is over the caller's limit. seal() (the close frame was written) makes
 * write_texts() take nothing more, write() still takes bytes.
 *
 * close() sends what is waiting, then closes the descriptor; past `linger` seconds
 * what is still waiting is dropped. abort() drops it at once. A send that fails (the
 * peer went away) closes the channel: later writes are dropped, `failed` holds the
 * errno. stop() sends what was written before it (for at most `timeout` seconds),
 * closes every channel and ends the thread.
 *
 * Standard C, POSIX threads and Linux's epoll and eventfd; one mutex guards the
 * queue and what both threads read of a channel.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct chan chan;

enum { ITEM_OPEN, ITEM_DATA, ITEM_CLOSE, ITEM_ABORT };

typedef struct item {
    struct item *next;
    chan *c;
    int kind;
    size_t len;
    char data[];
} item;

struct chan {
    /* Under the writer's mutex. */
    int refs;          /* the Python object, each queued item, the open descriptor */
    int accepting;     /* write() takes data: not closed, aborted, failed or stopped */
    int sealed;        /* write_texts() takes no more: the close frame was written */
    size_t backlog;    /* bytes taken by write() and not yet sent nor dropped */
    int failed;        /* errno of the send that failed, else 0 */
    /* The thread's alone. */
    int fd;            /* the dup()ed descriptor, -1 once closed */
    int registered;    /* in epoll, waiting to be writable */
    int closing;       /* close() was asked: close once sent, or at `deadline` */
    double deadline;
    char *pbuf;        /* bytes the kernel did not take yet: pbuf[poff:plen] */
    size_t poff, plen, pcap;
    chan *prev, *next; /* every open channel of the thread */
    chan *cprev, *cnext; /* the closing ones that still send (w->closing) */
    int in_closing;
};

typedef struct {
    pthread_mutex_t mu;
    /* Under mu. */
    item *head, *tail;
    int sleeping;      /* the thread waits in epoll_wait: wake it with efd */
    int stopping;
    int exited;
    double stop_deadline;
    unsigned long long sent_bytes, dropped_bytes, failures;
    /* Set once. */
    int efd, ep;
    double linger;
    pthread_t thread;
    int started, joined;
    /* The thread's alone. */
    chan *open;        /* list of open channels */
    chan *closing;     /* list of closing channels still sending, with a deadline */
    int registered;    /* channels waiting in epoll for their socket */
} wstate;

static double
now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Under w->mu. */
static void
chan_unref_locked(chan *c)
{
    if (--c->refs == 0) {
        free(c->pbuf);
        free(c);
    }
}

static void
account(wstate *w, chan *c, size_t sent, size_t dropped, int unref)
{
    pthread_mutex_lock(&w->mu);
    c->backlog -= sent + dropped;
    w->sent_bytes += sent;
    w->dropped_bytes += dropped;
    if (unref)
        chan_unref_locked(c);
    pthread_mutex_unlock(&w->mu);
}

/* Close the channel's descriptor, dropping what waits; `err` marks a failure. */
static void
chan_close(wstate *w, chan *c, int err)
{
    if (c->fd < 0)
        return;
    if (c->registered) {
        epoll_ctl(w->ep, EPOLL_CTL_DEL, c->fd, NULL);
        w->registered--;
    }
    c->registered = 0;
    if (c->in_closing) {
        if (c->cprev)
            c->cprev->cnext = c->cnext;
        else
            w->closing = c->cnext;
        if (c->cnext)
            c->cnext->cprev = c->cprev;
        c->cprev = c->cnext = NULL;
        c->in_closing = 0;
    }
    close(c->fd);
    c->fd = -1;
    size_t dropped = c->plen - c->poff;
    free(c->pbuf);
    c->pbuf = NULL;
    c->poff = c->plen = c->pcap = 0;
    if (c->prev)
        c->prev->next = c->next;
    else
        w->open = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
    pthread_mutex_lock(&w->mu);
    c->accepting = 0;
    if (err) {
        c->failed = err;
        w->failures++;
    }
    c->backlog -= dropped;
    w->dropped_bytes += dropped;
    chan_unref_locked(c); /* the descriptor's reference */
    pthread_mutex_unlock(&w->mu);
}

/* send() as much as the kernel takes now: the bytes sent, or -1 (errno set). */
static ssize_t
send_some(int fd, const char *buf, size_t len)
{
    size_t off = 0;
    while (off < len) {
        ssize_t r = send(fd, buf + off, len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (r > 0) {
            off += (size_t)r;
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (r == 0)
            errno = EPIPE;
        return -1;
    }
    return (ssize_t)off;
}

/* Keep bytes the kernel did not take; 0 on success, else an errno. */
static int
keep(chan *c, const char *data, size_t len)
{
    if (c->poff > 0 && c->plen + len > c->pcap) {
        memmove(c->pbuf, c->pbuf + c->poff, c->plen - c->poff);
        c->plen -= c->poff;
        c->poff = 0;
    }
    if (c->plen + len > c->pcap) {
        size_t cap = c->pcap ? c->pcap : 4096;
        while (cap < c->plen + len)
            cap *= 2;
        char *buf = realloc(c->pbuf, cap);
        if (!buf)
            return ENOMEM;
        c->pbuf = buf;
        c->pcap = cap;
    }
    memcpy(c->pbuf + c->plen, data, len);
    c->plen += len;
    return 0;
}

static int
wait_writable(wstate *w, chan *c)
{
    if (c->registered)
        return 0;
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = EPOLLOUT;
    ev.data.ptr = c;
    if (epoll_ctl(w->ep, EPOLL_CTL_ADD, c->fd, &ev) < 0)
        return errno;
    c->registered = 1;
    w->registered++;
    return 0;
}

/* Send what waits in the channel (its socket said it can take more). */
static void
flush_waiting(wstate *w, chan *c)
{
    if (c->fd < 0)
        return;
    size_t len = c->plen - c->poff;
    ssize_t r = len ? send_some(c->fd, c->pbuf + c->poff, len) : 0;
    if (r < 0) {
        chan_close(w, c, errno);
        return;
    }
    c->poff += (size_t)r;
    if (r)
        account(w, c, (size_t)r, 0, 0);
    if (c->poff == c->plen) {
        c->poff = c->plen = 0;
        if (c->registered) {
            epoll_ctl(w->ep, EPOLL_CTL_DEL, c->fd, NULL);
            c->registered = 0;
            w->registered--;
        }
        if (c->closing)
            chan_close(w, c, 0);
    }
}

static void
handle(wstate *w, item *it)
{
    chan *c = it->c;
    switch (it->kind) {
    case ITEM_OPEN:
        c->next = w->open;
        if (w->open)
            w->open->prev = c;
        w->open = c;
        account(w, c, 0, 0, 1);
        return;
    case ITEM_CLOSE:
        if (c->fd >= 0 && !c->closing) {
            c->closing = 1;
            c->deadline = now_s() + w->linger;
            if (c->plen == c->poff) {
                chan_close(w, c, 0);
            } else {
                c->cnext = w->closing;
                if (w->closing)
                    w->closing->cprev = c;
                w->closing = c;
                c->in_closing = 1;
            }
        }
        account(w, c, 0, 0, 1);
        return;
    case ITEM_ABORT:
        chan_close(w, c, 0);
        account(w, c, 0, 0, 1);
        return;
    default:
        break;
    }
    size_t len = it->len;
    if (c->fd < 0) {
        account(w, c, 0, len, 1);
        return;
    }
    if (c->plen > c->poff) { /* behind what waits already */
        int err = keep(c, it->data, len);
        if (err) {
            chan_close(w, c, err);
            account(w, c, 0, len, 1);
        } else {
            account(w, c, 0, 0, 1);
        }
        return;
    }
    ssize_t r = send_some(c->fd, it->data, len);
    if (r < 0) {
        chan_close(w, c, errno);
        account(w, c, 0, len, 1);
        return;
    }
    if ((size_t)r < len) {
        int err = keep(c, it->data + r, len - (size_t)r);
        if (!err)
            err = wait_writable(w, c);
        if (err) {
            chan_close(w, c, err);
            account(w, c, (size_t)r, len - (size_t)r, 1);
            return;
        }
    }
    account(w, c, (size_t)r, 0, 1);
}

/* Close the closing channels whose linger passed, and all of them past the stop's
 * deadline; the milliseconds until the next such deadline (-1: none). */
static int
expire(wstate *w, int stopping, double stop_deadline)
{
    if (!w->closing && !stopping)
        return -1;
    double now = now_s();
    double next = -1;
    if (stopping && now >= stop_deadline) {
        while (w->open)
            chan_close(w, w->open, 0);
        return 0;
    }
    chan *c = w->closing;
    while (c) {
        chan *after = c->cnext;
        if (now >= c->deadline)
            chan_close(w, c, 0);
        else if (next < 0 || c->deadline < next)
            next = c->deadline;
        c = after;
    }
    if (stopping && (next < 0 || stop_deadline < next))
        next = stop_deadline;
    if (next < 0)
        return -1;
    double ms = (next - now) * 1000.0 + 1.0;
    return ms < 0 ? 0 : (ms > 60000.0 ? 60000 : (int)ms);
}

static void *
run(void *arg)
{
    wstate *w = arg;
    struct epoll_event evs[64];
    for (;;) {
        pthread_mutex_lock(&w->mu);
        item *batch = w->head;
        w->head = w->tail = NULL;
        int stopping = w->stopping;
        double stop_deadline = w->stop_deadline;
        if (!batch) {
            if (stopping && (!w->registered || now_s() >= stop_deadline)) {
                w->exited = 1;
                pthread_mutex_unlock(&w->mu);
                break;
            }
            w->sleeping = 1;
        }
        pthread_mutex_unlock(&w->mu);
        while (batch) {
            item *next = batch->next;
            handle(w, batch);
            free(batch);
            batch = next;
        }
        int timeout = expire(w, stopping, stop_deadline);
        int polling = 0;
        pthread_mutex_lock(&w->mu);
        if (w->stopping != stopping) {
            w->sleeping = 0; /* stop() came meanwhile (and saw no sleeper to wake): go round */
        } else if (w->sleeping) {
            polling = 1; /* nothing was queued: wait for a write, a socket, a deadline */
        } else if (w->head == NULL) {
            w->sleeping = 1;
            polling = 1;
        }
        pthread_mutex_unlock(&w->mu);
        if (!polling) {
            timeout = 0; /* more to send: only look at the sockets waiting */
            if (!w->registered)
                continue;
        }
        int n = epoll_wait(w->ep, evs, 64, timeout);
        for (int i = 0; i < n; i++) {
            chan *c = evs[i].data.ptr;
            if (c == NULL) {
                uint64_t count;
                ssize_t r = read(w->efd, &count, sizeof count);
                (void)r;
            } else {
                flush_waiting(w, c);
            }
        }
        if (polling) {
            pthread_mutex_lock(&w->mu);
            w->sleeping = 0;
            pthread_mutex_unlock(&w->mu);
        }
    }
    while (w->open)
        chan_close(w, w->open, 0);
    return NULL;
}

/* ------------------------------------------------------------------ Python types */

typedef struct {
    PyObject_HEAD
    wstate *w;
} WriterObject;

typedef struct {
    PyObject_HEAD
    WriterObject *owner;
    chan *c;
} ChannelObject;

static PyTypeObject WriterType;
static PyTypeObject ChannelType;

/* Wake the thread from epoll_wait (it said it sleeps). */
static void
wake_thread(wstate *w)
{
    uint64_t one = 1;
    ssize_t r = write(w->efd, &one, sizeof one);
    (void)r;
}

/* Stop taking writes (w->mu not held); whether it took them until now. */
static int
stop_accepting(wstate *w, chan *c)
{
    pthread_mutex_lock(&w->mu);
    int was = c->accepting;
    c->accepting = 0;
    pthread_mutex_unlock(&w->mu);
    return was;
}

enum { QUEUE_CONTROL, QUEUE_BYTES, QUEUE_TEXTS };

/* Queue an item (w->mu not held); 0 when refused (the channel or the writer ended, or
 * for texts, sealed), -1 when texts find more than `limit` bytes waiting: the item is
 * freed then. */
static int
enqueue(wstate *w, item *it, int what, size_t limit)
{
    chan *c = it->c;
    int data = what != QUEUE_CONTROL;
    int wake = 0;
    pthread_mutex_lock(&w->mu);
    int refused = w->stopping || w->exited || (data && !c->accepting)
                  || (what == QUEUE_TEXTS && c->sealed);
    int over = !refused && what == QUEUE_TEXTS && c->backlog > limit;
    if (refused || over) {
        pthread_mutex_unlock(&w->mu);
        free(it);
        return over ? -1 : 0;
    }
    c->refs++;
    if (data)
        c->backlog += it->len;
    it->next = NULL;
    if (w->tail)
        w->tail->next = it;
    else
        w->head = it;
    w->tail = it;
    if (w->sleeping) {
        w->sleeping = 0;
        wake = 1;
    }
    pthread_mutex_unlock(&w->mu);
    if (wake)
        wake_thread(w);
    return 1;
}

static item *
new_item(chan *c, int kind, size_t len)
{
    item *it = malloc(sizeof(item) + len);
    if (it) {
        it->c = c;
        it->kind = kind;
        it->len = len;
    }
    return it;
}

static int
start_thread(wstate *w)
{
    if (w->started)
        return 0;
    int err = pthread_create(&w->thread, NULL, run, w);
    if (err) {
        errno = err;
        PyErr_SetFromErrno(PyExc_OSError);
        return -1;
    }
    w->started = 1;
    return 0;
}

static void
stop_and_join(wstate *w, double timeout)
{
    int wake = 0;
    pthread_mutex_lock(&w->mu);
    if (!w->stopping) {
        w->stopping = 1;
        w->stop_deadline = now_s() + (timeout > 0 ? timeout : 0);
    }
    if (!w->started)
        w->exited = 1;
    if (w->sleeping) {
        w->sleeping = 0;
        wake = 1;
    }
    pthread_mutex_unlock(&w->mu);
    if (wake)
        wake_thread(w);
    if (w->started && !w->joined) {
        pthread_join(w->thread, NULL);
        w->joined = 1;
    }
}

static PyObject *
Writer_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"linger", NULL};
    double linger = 10.0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|d", kwlist, &linger))
        return NULL;
    if (!(linger >= 0)) {
        PyErr_SetString(PyExc_ValueError, "linger must be >= 0");
        return NULL;
    }
    WriterObject *self = (WriterObject *)type->tp_alloc(type, 0);
    if (!self)
        return NULL;
    wstate *w = calloc(1, sizeof(wstate));
    if (!w) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    w->efd = w->ep = -1;
    w->linger = linger;
    pthread_mutex_init(&w->mu, NULL);
    self->w = w;
    w->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    w->ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = EPOLLIN;
    ev.data.ptr = NULL;
    if (w->efd < 0 || w->ep < 0 || epoll_ctl(w->ep, EPOLL_CTL_ADD, w->efd, &ev) < 0) {
        PyErr_SetFromErrno(PyExc_OSError);
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static void
Writer_dealloc(WriterObject *self)
{
    wstate *w = self->w;
    if (w) {
        Py_BEGIN_ALLOW_THREADS
        stop_and_join(w, 0);
        Py_END_ALLOW_THREADS
        /* Items can only be left if the thread never ran. */
        item *it = w->head;
        while (it) {
            item *next = it->next;
            if (--it->c->refs == 0) {
                free(it->c->pbuf);
                free(it->c);
            }
            free(it);
            it = next;
        }
        if (w->efd >= 0)
            close(w->efd);
        if (w->ep >= 0)
            close(w->ep);
        pthread_mutex_destroy(&w->mu);
        free(w);
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

PyDoc_STRVAR(Writer_channel_doc,
"channel(fd) -> Channel\n\n"
"A channel writing to a duplicate of the socket descriptor fd (the caller keeps\n"
"its own). Starts the thread on first use. OSError if the descriptor cannot be\n"
"duplicated, RuntimeError once the writer is stopped.");

static PyObject *
Writer_channel(WriterObject *self, PyObject *arg)
{
    wstate *w = self->w;
    int fd = PyObject_AsFileDescriptor(arg);
    if (fd < 0)
        return NULL;
    pthread_mutex_lock(&w->mu);
    int ended = w->stopping || w->exited;
    pthread_mutex_unlock(&w->mu);
    if (ended) {
        PyErr_SetString(PyExc_RuntimeError, "the writer is stopped");
        return NULL;
    }
    if (start_thread(w) < 0)
        return NULL;
    chan *c = calloc(1, sizeof(chan));
    item *it = new_item(c, ITEM_OPEN, 0);
    if (!c || !it) {
        free(c);
        free(it);
        return PyErr_NoMemory();
    }
    c->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (c->fd < 0) {
        PyErr_SetFromErrno(PyExc_OSError);
        free(c);
        free(it);
        return NULL;
    }
    c->refs = 2; /* the Python object, the open descriptor */
    c->accepting = 1;
    ChannelObject *obj = PyObject_New(ChannelObject, &ChannelType);
    if (!obj) {
        close(c->fd);
        free(c);
        free(it);
        return NULL;
    }
    Py_INCREF(self);
    obj->owner = self;
    obj->c = c;
    if (!enqueue(w, it, QUEUE_CONTROL, 0)) { /* stopped meanwhile: the thread will not take it */
        close(c->fd);
        c->fd = -1;
        pthread_mutex_lock(&w->mu);
        c->accepting = 0;
        c->refs--; /* no descriptor */
        pthread_mutex_unlock(&w->mu);
    }
    return (PyObject *)obj;
}

PyDoc_STRVAR(Writer_stop_doc,
"stop(timeout=2.0)\n\n"
"Send what was written (for at most timeout seconds), close every channel and end\n"
"the thread. Later writes are dropped. Waits with the interpreter lock released.");

static PyObject *
Writer_stop(WriterObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"timeout", NULL};
    double timeout = 2.0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|d", kwlist, &timeout))
        return NULL;
    wstate *w = self->w;
    Py_BEGIN_ALLOW_THREADS
    stop_and_join(w, timeout);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

static PyObject *
Writer_stats(WriterObject *self, PyObject *unused)
{
    wstate *w = self->w;
    pthread_mutex_lock(&w->mu);
    unsigned long long sent = w->sent_bytes, dropped = w->dropped_bytes, failures = w->failures;
    int running = w->started && !w->exited;
    pthread_mutex_unlock(&w->mu);
    return Py_BuildValue("{s:K,s:K,s:K,s:O}", "sent_bytes", sent, "dropped_bytes", dropped,
                         "failures", failures, "running", running ? Py_True : Py_False);
}

static PyMethodDef Writer_methods[] = {
    {"channel", (PyCFunction)Writer_channel, METH_O, Writer_channel_doc},
    {"stop", (PyCFunction)(void (*)(void))Writer_stop, METH_VARARGS | METH_KEYWORDS,
     Writer_stop_doc},
    {"stats", (PyCFunction)Writer_stats, METH_NOARGS,
     "stats() -> dict: bytes sent and dropped, failed sends, whether the thread runs."},
    {NULL},
};

static PyTypeObject WriterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "remi_sockwriter.Writer",
    .tp_basicsize = sizeof(WriterObject),
    .tp_dealloc = (destructor)Writer_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Writer(linger=10.0): a thread that sends the channels' bytes.",
    .tp_methods = Writer_methods,
    .tp_new = Writer_new,
};

/* ---------------------------------------------------------------- Channel */

static int
channel_put(ChannelObject *self, const char *head, size_t head_len, const char *data,
            size_t len)
{
    item *it = new_item(self->c, ITEM_DATA, head_len + len);
    if (!it) {
        PyErr_NoMemory();
        return -1;
    }
    if (head_len)
        memcpy(it->data, head, head_len);
    memcpy(it->data + head_len, data, len);
    return enqueue(self->owner->w, it, QUEUE_BYTES, 0);
}

/* The header of an unmasked, final text frame of n bytes (RFC 6455 §5.2). */
static size_t
text_header(char *h, size_t n)
{
    h[0] = (char)0x81;
    if (n < 126) {
        h[1] = (char)n;
        return 2;
    }
    if (n < 0x10000) {
        h[1] = 126;
        h[2] = (char)(n >> 8);
        h[3] = (char)n;
        return 4;
    }
    h[1] = 127;
    for (int i = 0; i < 8; i++)
        h[2 + i] = (char)((uint64_t)n >> (56 - 8 * i));
    return 10;
}

PyDoc_STRVAR(Channel_write_doc,
"write(data) -> bool\n\n"
"Queue bytes to send, after those written before. False when the channel no longer\n"
"takes any (closed, aborted, failed, or the writer stopped): the bytes are dropped.");

static PyObject *
Channel_write(ChannelObject *self, PyObject *arg)
{
    Py_buffer b;
    if (PyObject_GetBuffer(arg, &b, PyBUF_SIMPLE) < 0)
        return NULL;
    int r = channel_put(self, NULL, 0, b.buf, (size_t)b.len);
    PyBuffer_Release(&b);
    if (r < 0)
        return NULL;
    return PyBool_FromLong(r);
}

PyDoc_STRVAR(Channel_write_texts_doc,
"write_texts(limit, *texts) -> int\n\n"
"Queue each str as one WebSocket text frame (unmasked, final: what a server sends),\n"
"all of them as one send: 1. Nothing is queued when more than `limit` bytes wait\n"
"already (a client that reads too slowly): -1; nor when the channel no longer takes\n"
"any (as for write()) or was sealed: 0.");

static PyObject *
Channel_write_texts(ChannelObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    const char *small_datas[4];
    Py_ssize_t small_lens[4];
    const char **datas = small_datas;
    Py_ssize_t *lens = small_lens;
    PyObject *result = NULL;
    if (nargs < 1) {
        PyErr_SetString(PyExc_TypeError, "write_texts takes a limit, then texts");
        return NULL;
    }
    size_t limit = PyLong_AsSize_t(args[0]);
    if (limit == (size_t)-1 && PyErr_Occurred())
        return NULL;
    args++;
    nargs--;
    if (nargs > 4) {
        datas = PyMem_Malloc(sizeof(*datas) * (size_t)nargs);
        lens = PyMem_Malloc(sizeof(*lens) * (size_t)nargs);
        if (!datas || !lens) {
            PyErr_NoMemory();
            goto done;
        }
    }
    size_t total = 0;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        if (!PyUnicode_Check(args[i])) {
            PyErr_SetString(PyExc_TypeError, "write_texts takes str");
            goto done;
        }
        datas[i] = PyUnicode_AsUTF8AndSize(args[i], &lens[i]);
        if (!datas[i])
            goto done;
        total += 10 + (size_t)lens[i];
    }
    item *it = new_item(self->c, ITEM_DATA, total);
    if (!it) {
        PyErr_NoMemory();
        goto done;
    }
    size_t pos = 0;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        pos += text_header(it->data + pos, (size_t)lens[i]);
        memcpy(it->data + pos, datas[i], (size_t)lens[i]);
        pos += (size_t)lens[i];
    }
    it->len = pos;
    result = PyLong_FromLong(enqueue(self->owner->w, it, QUEUE_TEXTS, limit));
done:
    if (datas != small_datas)
        PyMem_Free(datas);
    if (lens != small_lens)
        PyMem_Free(lens);
    return result;
}

static PyObject *
channel_end(ChannelObject *self, int kind)
{
    wstate *w = self->owner->w;
    chan *c = self->c;
    if (stop_accepting(w, c) || kind == ITEM_ABORT) {
        item *it = new_item(c, kind, 0);
        if (!it)
            return PyErr_NoMemory();
        enqueue(w, it, QUEUE_CONTROL, 0);
    }
    Py_RETURN_NONE;
}

static PyObject *
Channel_close(ChannelObject *self, PyObject *unused)
{
    return channel_end(self, ITEM_CLOSE);
}

static PyObject *
Channel_abort(ChannelObject *self, PyObject *unused)
{
    return channel_end(self, ITEM_ABORT);
}

static PyObject *
Channel_seal(ChannelObject *self, PyObject *unused)
{
    wstate *w = self->owner->w;
    pthread_mutex_lock(&w->mu);
    self->c->sealed = 1;
    pthread_mutex_unlock(&w->mu);
    Py_RETURN_NONE;
}

enum { GET_BACKLOG, GET_FAILED, GET_CLOSED };

/* The getters: what both threads write of a channel, read under the mutex. */
static PyObject *
Channel_get(ChannelObject *self, void *closure)
{
    wstate *w = self->owner->w;
    chan *c = self->c;
    pthread_mutex_lock(&w->mu);
    size_t backlog = c->backlog;
    int failed = c->failed;
    int closed = !c->accepting || w->stopping || w->exited;
    pthread_mutex_unlock(&w->mu);
    switch ((int)(intptr_t)closure) {
    case GET_BACKLOG:
        return PyLong_FromSize_t(backlog);
    case GET_FAILED:
        return PyLong_FromLong(failed);
    default:
        return PyBool_FromLong(closed);
    }
}

static void
Channel_dealloc(ChannelObject *self)
{
    wstate *w = self->owner->w;
    chan *c = self->c;
    if (stop_accepting(w, c)) { /* never closed: close after what was written */
        item *it = new_item(c, ITEM_CLOSE, 0);
        if (it)
            enqueue(w, it, QUEUE_CONTROL, 0);
    }
    pthread_mutex_lock(&w->mu);
    chan_unref_locked(c);
    pthread_mutex_unlock(&w->mu);
    Py_DECREF(self->owner);
    PyObject_Free(self);
}

static PyMethodDef Channel_methods[] = {
    {"write", (PyCFunction)Channel_write, METH_O, Channel_write_doc},
    {"write_texts", (PyCFunction)(void (*)(void))Channel_write_texts, METH_FASTCALL,
     Channel_write_texts_doc},
    {"close", (PyCFunction)Channel_close, METH_NOARGS,
     "close(): send what was written, then close (dropped past the writer's linger)."},
    {"abort", (PyCFunction)Channel_abort, METH_NOARGS,
     "abort(): drop what was not sent yet and close now."},
    {"seal", (PyCFunction)Channel_seal, METH_NOARGS,
     "seal(): write_texts() takes nothing more (the close frame was written); write()\n"
     "still does."},
    {NULL},
};

static PyGetSetDef Channel_getset[] = {
    {"backlog", (getter)Channel_get, NULL, "Bytes written and not yet taken by the kernel.",
     (void *)GET_BACKLOG},
    {"failed", (getter)Channel_get, NULL,
     "The errno of the send that failed (the peer went away), else 0.", (void *)GET_FAILED},
    {"closed", (getter)Channel_get, NULL,
     "True once writes are dropped: closed, aborted, failed, or the writer stopped.",
     (void *)GET_CLOSED},
    {NULL},
};

static PyTypeObject ChannelType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "remi_sockwriter.Channel",
    .tp_basicsize = sizeof(ChannelObject),
    .tp_dealloc = (destructor)Channel_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One socket's writes, in order (made by Writer.channel).",
    .tp_methods = Channel_methods,
    .tp_getset = Channel_getset,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "remi_sockwriter",
    .m_doc = "The room sockets' writes on a thread of their own (server/socketwriter.py).",
    .m_size = -1,
};

PyMODINIT_FUNC
PyInit_remi_sockwriter(void)
{
    if (PyType_Ready(&WriterType) < 0 || PyType_Ready(&ChannelType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    Py_INCREF(&WriterType);
    if (PyModule_AddObject(m, "Writer", (PyObject *)&WriterType) < 0) {
        Py_DECREF(&WriterType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&ChannelType);
    if (PyModule_AddObject(m, "Channel", (PyObject *)&ChannelType) < 0) {
        Py_DECREF(&ChannelType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
