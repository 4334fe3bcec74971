/*
 * fakegcits.c -- the simulated stone's libgcits.  A TEST DOUBLE, NOT GEMSTONE.
 *
 * Exports the GciTs functions gsmcpd uses, with GemStone/S 64 3.7's
 * prototypes, so the daemon's ctypes binding loads it exactly as it loads the
 * real library.  Each call becomes a request to the simulator process over a
 * Unix stream socket whose path is the StoneNameNrs given to GciTsLogin; the
 * wire format is documented in gsmcpd/testing/simulator/wire.py.  A call blocks in a
 * socket read the way a real one blocks on its gem.
 *
 * One connection per session (the connection is the "gem").  Only the thread
 * making a call reads from it; GciTsBreak may write a break frame from another
 * thread, so writes are guarded by a per-session mutex.
 *
 * Stricter than it need be where the real library's behaviour is undefined:
 * GciTsLogout frees the real session, so any call on the handle afterwards,
 * and a GciTsBreak still in flight when the logout starts, would use freed
 * memory.  Here a logged-out session is kept (never freed, never reused) so
 * such a call is refused, and each is counted for the tests
 * (FakeGciTsMisuses, not a GemStone function; FakeGciTsFreed tells whether a
 * session was logged out and its socket closed).
 *
 * A break on a real stone writes to the gem's socket, through the NetLDI when
 * the gem is remote, and a wedged gem or network holds it: with
 * FAKEGCITS_BREAK_DELAY set in its environment (seconds) every GciTsBreak
 * blocks that long before it is sent, so tests can show a stuck break stalls
 * nothing else.
 */

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

typedef uint64_t OopType;
typedef unsigned char ByteType;
typedef int BoolType;
typedef void *GciSession;

#define GCI_MAX_ERR_ARGS 10
#define GCI_ERR_STR_SIZE 1024
#define GCI_ERR_reasonSize 1024

typedef struct {
    OopType category;
    OopType context;
    OopType exceptionObj;
    OopType args[GCI_MAX_ERR_ARGS];
    int number;
    int argCount;
    unsigned char fatal;
    char message[GCI_ERR_STR_SIZE + 1];
    char reason[GCI_ERR_reasonSize + 1];
} GciErrSType;

_Static_assert(sizeof(GciErrSType) == 2168, "GciErrSType size");
_Static_assert(offsetof(GciErrSType, context) == 8, "context offset");
_Static_assert(offsetof(GciErrSType, exceptionObj) == 16, "exceptionObj offset");
_Static_assert(offsetof(GciErrSType, args) == 24, "args offset");
_Static_assert(offsetof(GciErrSType, number) == 104, "number offset");
_Static_assert(offsetof(GciErrSType, argCount) == 108, "argCount offset");
_Static_assert(offsetof(GciErrSType, fatal) == 112, "fatal offset");
_Static_assert(offsetof(GciErrSType, message) == 113, "message offset");
_Static_assert(offsetof(GciErrSType, reason) == 1138, "reason offset");

#define OOP_ILLEGAL ((OopType)0x01)
#define OOP_NIL ((OopType)0x14)
#define OOP_GEMSTONE_ERROR_CAT ((OopType)231169)

/* Error numbers; see gsmcpd/testing/simulator/errors.py for their sources. */
#define ERR_SESSION_GONE 4100
#define ERR_NO_SERVER 4065
#define ERR_CALL_IN_PROGRESS 4200
#define ERR_ARGUMENT_TYPE 2094

/* Opcodes and statuses (wire.py). */
enum { OP_LOGIN = 1, OP_LOGOUT = 2, OP_EXECUTE = 3, OP_BREAK = 4, OP_CLEARSTACK = 5,
       OP_RESOLVE = 7, OP_CONTINUE = 8 };
enum { ST_OK = 0, ST_ERROR = 1 };

#define MAX_FIELDS 8
#define MAX_FRAME (256u * 1024u * 1024u)

static const char VERSION[] =
    "3.7.4 build 0 (simulated stone: gsmcpd test double, not GemStone)";

typedef struct FakeSession {
    int fd;
    int dead;                 /* the gem is gone: every call fails fatally */
    int loggedOut;            /* GciTsLogout has begun: the handle is dead */
    int breaksInFlight;       /* GciTsBreak calls not yet returned */
    int inProgress;           /* a call is running (read by CallInProgress) */
    pthread_mutex_t callLock; /* one call at a time */
    pthread_mutex_t writeLock;/* a break may write while a call waits to read */
    struct FakeSession *next;
} FakeSession;

/* Every session ever logged in, so a foreign pointer is refused, not followed. */
static FakeSession *liveSessions;
static pthread_mutex_t liveLock = PTHREAD_MUTEX_INITIALIZER;

/* Calls that would have used a freed session on the real library. */
static int misuses;

typedef struct {
    unsigned char *payload;
    size_t count;
    const unsigned char *data[MAX_FIELDS];
    uint32_t size[MAX_FIELDS];
} Reply;

/* ---------------------------------------------------------------- errors */

static void copyText(char *dest, const void *src, size_t size)
{
    size_t n = size > GCI_ERR_STR_SIZE ? GCI_ERR_STR_SIZE : size;
    /* never cut a UTF-8 sequence in half */
    if (n < size)
        while (n > 0 && (((const unsigned char *)src)[n] & 0xC0) == 0x80)
            n--;
    memcpy(dest, src, n);
    dest[n] = '\0';
}

static void setError(GciErrSType *err, int number, int fatal, const char *message,
                     const char *reason)
{
    if (err == NULL)
        return;
    memset(err, 0, sizeof(*err));
    err->category = OOP_GEMSTONE_ERROR_CAT;
    err->context = OOP_NIL;
    err->exceptionObj = OOP_NIL;
    err->number = number;
    err->fatal = (unsigned char)(fatal ? 1 : 0);
    copyText(err->message, message, strlen(message));
    copyText(err->reason, reason, strlen(reason));
}

static void clearError(GciErrSType *err)
{
    if (err != NULL)
        memset(err, 0, sizeof(*err));
}

static void setGoneError(GciErrSType *err)
{
    setError(err, ERR_SESSION_GONE, 1,
             "the session's gem is gone (simulated stone: the gem was stopped or "
             "the stone exited); log in again",
             "gemGone");
}

static unsigned long long parseNumber(const unsigned char *data, uint32_t size)
{
    char text[32];
    size_t n = size < sizeof(text) - 1 ? size : sizeof(text) - 1;
    memcpy(text, data, n);
    text[n] = '\0';
    return strtoull(text, NULL, 10);
}

/* Fill err from an error reply: number fatal message reason [contextOop]. */
static void setReplyError(GciErrSType *err, const Reply *reply)
{
    if (err == NULL)
        return;
    memset(err, 0, sizeof(*err));
    err->category = OOP_GEMSTONE_ERROR_CAT;
    err->context = OOP_NIL;
    err->exceptionObj = OOP_NIL;
    if (reply->count < 4) {
        setError(err, ERR_SESSION_GONE, 1, "malformed error reply from the simulated stone",
                 "protocol");
        return;
    }
    err->number = (int)parseNumber(reply->data[0], reply->size[0]);
    err->fatal = (unsigned char)(parseNumber(reply->data[1], reply->size[1]) ? 1 : 0);
    copyText(err->message, reply->data[2], reply->size[2]);
    copyText(err->reason, reply->data[3], reply->size[3]);
    if (reply->count >= 5)
        err->context = (OopType)parseNumber(reply->data[4], reply->size[4]);
}

/* --------------------------------------------------------------- framing */

static int writeAll(int fd, const unsigned char *data, size_t size)
{
    while (size > 0) {
        ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        data += n;
        size -= (size_t)n;
    }
    return 0;
}

static int readAll(int fd, unsigned char *data, size_t size)
{
    while (size > 0) {
        ssize_t n = recv(fd, data, size, 0);
        if (n == 0)
            return -1;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        data += n;
        size -= (size_t)n;
    }
    return 0;
}

static void putLength(unsigned char *at, uint32_t value)
{
    at[0] = (unsigned char)(value >> 24);
    at[1] = (unsigned char)(value >> 16);
    at[2] = (unsigned char)(value >> 8);
    at[3] = (unsigned char)value;
}

static uint32_t getLength(const unsigned char *at)
{
    return ((uint32_t)at[0] << 24) | ((uint32_t)at[1] << 16) | ((uint32_t)at[2] << 8) | at[3];
}

/* Send one request frame: opcode, then count fields. */
static int sendRequest(int fd, int opcode, size_t count, const void *const *fields,
                       const size_t *sizes)
{
    size_t total = 1, i, at;
    unsigned char *frame;
    int result;
    for (i = 0; i < count; i++)
        total += 4 + sizes[i];
    if (total > MAX_FRAME)
        return -1;
    frame = malloc(4 + total);
    if (frame == NULL)
        return -1;
    putLength(frame, (uint32_t)total);
    frame[4] = (unsigned char)opcode;
    at = 5;
    for (i = 0; i < count; i++) {
        putLength(frame + at, (uint32_t)sizes[i]);
        memcpy(frame + at + 4, fields[i], sizes[i]);
        at += 4 + sizes[i];
    }
    result = writeAll(fd, frame, 4 + total);
    free(frame);
    return result;
}

/* Read one reply frame; 0 on success (free with freeReply), -1 if the gem is gone. */
static int readReply(int fd, Reply *reply)
{
    unsigned char header[4];
    uint32_t size;
    size_t at = 1;
    memset(reply, 0, sizeof(*reply));
    if (readAll(fd, header, 4) < 0)
        return -1;
    size = getLength(header);
    if (size == 0 || size > MAX_FRAME)
        return -1;
    reply->payload = malloc(size + 1);
    if (reply->payload == NULL || readAll(fd, reply->payload, size) < 0)
        goto fail;
    reply->payload[size] = '\0';
    while (at < size && reply->count < MAX_FIELDS) {
        uint32_t fieldSize;
        if (at + 4 > size)
            goto fail;
        fieldSize = getLength(reply->payload + at);
        at += 4;
        if (fieldSize > size - at)
            goto fail;
        reply->data[reply->count] = reply->payload + at;
        reply->size[reply->count] = fieldSize;
        reply->count++;
        at += fieldSize;
    }
    return 0;
fail:
    free(reply->payload);
    reply->payload = NULL;
    return -1;
}

static void freeReply(Reply *reply)
{
    free(reply->payload);
    reply->payload = NULL;
}

/* ------------------------------------------------------------- sessions */

static void registerSession(FakeSession *s)
{
    pthread_mutex_lock(&liveLock);
    s->next = liveSessions;
    liveSessions = s;
    pthread_mutex_unlock(&liveLock);
}

static int isLive(FakeSession *s)
{
    FakeSession *each;
    int found = 0;
    pthread_mutex_lock(&liveLock);
    for (each = liveSessions; each != NULL; each = each->next)
        if (each == s) {
            found = 1;
            break;
        }
    pthread_mutex_unlock(&liveLock);
    return found;
}

static void misused(void)
{
    __atomic_add_fetch(&misuses, 1, __ATOMIC_SEQ_CST);
}

static FakeSession *checkSession(GciSession sess, GciErrSType *err)
{
    FakeSession *s = (FakeSession *)sess;
    if (s == NULL || !isLive(s)) {
        misused();
        setError(err, ERR_SESSION_GONE, 1, "argument is not a valid GciSession pointer",
                 "invalidSession");
        return NULL;
    }
    if (__atomic_load_n(&s->loggedOut, __ATOMIC_SEQ_CST)) {
        misused();
        setError(err, ERR_SESSION_GONE, 1,
                 "the GciSession was logged out (simulated stone: on a real stone "
                 "GciTsLogout freed it, and this call would use freed memory)",
                 "loggedOut");
        return NULL;
    }
    return s;
}

/* Whether sess was logged out and its socket closed (tests only). */
int FakeGciTsFreed(GciSession sess)
{
    FakeSession *s = (FakeSession *)sess;
    int freed;
    if (s == NULL || !isLive(s))
        return -1;
    pthread_mutex_lock(&s->writeLock);
    freed = __atomic_load_n(&s->loggedOut, __ATOMIC_SEQ_CST) && s->fd < 0;
    pthread_mutex_unlock(&s->writeLock);
    return freed;
}

/* Block as a break to a wedged gem would, if FAKEGCITS_BREAK_DELAY says so. */
static void breakDelay(void)
{
    const char *text = getenv("FAKEGCITS_BREAK_DELAY");
    double seconds = text != NULL ? strtod(text, NULL) : 0.0;
    struct timespec delay;
    if (seconds <= 0.0)
        return;
    delay.tv_sec = (time_t)seconds;
    delay.tv_nsec = (long)((seconds - (double)delay.tv_sec) * 1e9);
    while (nanosleep(&delay, &delay) != 0 && errno == EINTR)
        ;
}

/* How many calls used a logged-out or foreign session (tests only). */
int FakeGciTsMisuses(void)
{
    return __atomic_load_n(&misuses, __ATOMIC_SEQ_CST);
}

/*
 * Begin a call: take the session's call lock (refusing a second concurrent
 * call, as the real library does) and mark it in progress.
 */
static int beginCall(FakeSession *s, GciErrSType *err)
{
    if (pthread_mutex_trylock(&s->callLock) != 0) {
        setError(err, ERR_CALL_IN_PROGRESS, 0,
                 "session has call in progress by another C thread", "callInProgress");
        return -1;
    }
    if (__atomic_load_n(&s->dead, __ATOMIC_SEQ_CST)) {
        pthread_mutex_unlock(&s->callLock);
        setGoneError(err);
        return -1;
    }
    __atomic_store_n(&s->inProgress, 1, __ATOMIC_SEQ_CST);
    return 0;
}

static void endCall(FakeSession *s)
{
    __atomic_store_n(&s->inProgress, 0, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&s->callLock);
}

/* Send a request and read its reply; on a dead connection mark the gem gone. */
static int roundTrip(FakeSession *s, int opcode, size_t count, const void *const *fields,
                     const size_t *sizes, Reply *reply, GciErrSType *err)
{
    int sent;
    memset(reply, 0, sizeof(*reply));
    pthread_mutex_lock(&s->writeLock);
    sent = sendRequest(s->fd, opcode, count, fields, sizes);
    pthread_mutex_unlock(&s->writeLock);
    if (sent < 0 || readReply(s->fd, reply) < 0) {
        __atomic_store_n(&s->dead, 1, __ATOMIC_SEQ_CST);
        setGoneError(err);
        return -1;
    }
    if (reply->payload[0] != ST_OK) {
        setReplyError(err, reply);
        return 1;
    }
    return 0;
}

/* The reply's status byte (its fields start after it). */
static int replyStatus(Reply *reply)
{
    return reply->payload[0];
}

/* ---------------------------------------------------------------- exports */

unsigned int GciTsVersion(char *buf, size_t bufSize)
{
    if (buf != NULL && bufSize > 0) {
        size_t n = strlen(VERSION);
        if (n >= bufSize)
            n = bufSize - 1;
        memcpy(buf, VERSION, n);
        buf[n] = '\0';
    }
    return 3;
}

static int connectTo(const char *path, GciErrSType *err)
{
    struct sockaddr_un address;
    int fd;
    char message[GCI_ERR_STR_SIZE];
    if (path == NULL || strlen(path) >= sizeof(address.sun_path)) {
        setError(err, ERR_NO_SERVER, 1,
                 "Login failed: could not find server: the simulated stone's NRS must be "
                 "the path of its Unix socket",
                 "noServer");
        return -1;
    }
    memset(&address, 0, sizeof(address));
    address.sun_family = AF_UNIX;
    strcpy(address.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&address, sizeof(address)) == 0)
        return fd;
    snprintf(message, sizeof(message),
             "Login failed: could not find server: no simulated stone listening at %s (%s)",
             path, strerror(errno));
    if (fd >= 0)
        close(fd);
    setError(err, ERR_NO_SERVER, 1, message, "noServer");
    return -1;
}

GciSession GciTsLogin(const char *StoneNameNrs, const char *HostUserId, const char *HostPassword,
                      BoolType hostPwIsEncrypted, const char *GemServiceNrs,
                      const char *gemstoneUsername, const char *gemstonePassword,
                      unsigned int loginFlags, int haltOnErrNum, BoolType *executedSessionInit,
                      GciErrSType *err)
{
    const char *texts[5] = {HostUserId, HostPassword, GemServiceNrs, gemstoneUsername,
                            gemstonePassword};
    const void *fields[6];
    size_t sizes[6], i;
    char flags[16];
    Reply reply;
    FakeSession *s;
    int fd;
    (void)hostPwIsEncrypted;
    (void)haltOnErrNum;
    if (executedSessionInit != NULL)
        *executedSessionInit = 0;
    fd = connectTo(StoneNameNrs, err);
    if (fd < 0)
        return NULL;
    for (i = 0; i < 5; i++) {
        fields[i] = texts[i] != NULL ? texts[i] : "";
        sizes[i] = strlen(fields[i]);
    }
    snprintf(flags, sizeof(flags), "%u", loginFlags);
    fields[5] = flags;
    sizes[5] = strlen(flags);
    if (sendRequest(fd, OP_LOGIN, 6, fields, sizes) < 0 || readReply(fd, &reply) < 0) {
        close(fd);
        setError(err, ERR_SESSION_GONE, 1,
                 "Login failed: the simulated stone closed the connection", "gemGone");
        return NULL;
    }
    if (replyStatus(&reply) != ST_OK) {
        setReplyError(err, &reply);
        freeReply(&reply);
        close(fd);
        return NULL;
    }
    s = calloc(1, sizeof(*s));
    if (s == NULL) {
        freeReply(&reply);
        close(fd);
        setError(err, ERR_SESSION_GONE, 1, "Login failed: out of memory", "noMemory");
        return NULL;
    }
    s->fd = fd;
    pthread_mutex_init(&s->callLock, NULL);
    pthread_mutex_init(&s->writeLock, NULL);
    registerSession(s);
    /* ok(sessionNumber [warningNumber message]): "If result is non-NULL, login
       succeeded but there may still be a warning in *err" (gcits.hf) */
    if (reply.count >= 3) {
        char message[GCI_ERR_STR_SIZE + 1];
        copyText(message, reply.data[2], reply.size[2]);
        setError(err, (int)parseNumber(reply.data[1], reply.size[1]), 0, message, "warning");
    } else
        clearError(err);
    freeReply(&reply);
    return s;
}

/*
 * Log out.  The session is over even when its gem was already gone (then the
 * answer is FALSE with error 4100, fatal).  The real library frees it here;
 * this one keeps it, marked, so a later call on it is refused and counted.
 */
BoolType GciTsLogout(GciSession sess, GciErrSType *err)
{
    FakeSession *s = checkSession(sess, err);
    Reply reply;
    int outcome;
    if (s == NULL)
        return 0;
    __atomic_store_n(&s->loggedOut, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&s->breaksInFlight, __ATOMIC_SEQ_CST) > 0)
        misused();  /* the real library would free what that break is using */
    if (beginCall(s, err) < 0) {
        if (!__atomic_load_n(&s->dead, __ATOMIC_SEQ_CST)) {
            /* a call is in progress: the logout is refused, the handle stays */
            __atomic_store_n(&s->loggedOut, 0, __ATOMIC_SEQ_CST);
            return 0;
        }
        outcome = -1;
    } else {
        outcome = roundTrip(s, OP_LOGOUT, 0, NULL, NULL, &reply, err);
        if (outcome >= 0)
            freeReply(&reply);
        endCall(s);
    }
    pthread_mutex_lock(&s->writeLock);
    close(s->fd);
    s->fd = -1;
    pthread_mutex_unlock(&s->writeLock);
    if (outcome != 0)
        return 0;
    clearError(err);
    return 1;
}

static void setSimulatorLimit(GciErrSType *err, const char *message)
{
    setError(err, ERR_ARGUMENT_TYPE, 0, message, "simulatorLimit");
}

/*
 * Execute sourceStr and copy the bytes of its result (a byte object) into
 * result.  The header leaves unsaid what a result larger than maxResultSize
 * does; GciTsFetchBytes and GciTsPerformFetchOops document (and public
 * clients measured) answering the first bytes only, so this answers
 * min(result size, maxResultSize) and no error: the caller must tell a cut
 * result itself.  -1 on error, with err filled.  sourceOop must be the OOP of
 * the String or Utf8 class as GciTsResolveSymbol answered it (the simulator
 * checks it): the simulated stone's OOPs are not GemStone's.
 */
ssize_t GciTsExecuteFetchBytes(GciSession sess, const char *sourceStr, ssize_t sourceSize,
                               OopType sourceOop, OopType contextObject, OopType symbolList,
                               ByteType *result, ssize_t maxResultSize, GciErrSType *err)
{
    FakeSession *s = checkSession(sess, err);
    const void *fields[2];
    size_t sizes[2];
    char oop[24];
    Reply reply;
    ssize_t copied = -1;
    if (s == NULL)
        return -1;
    if (sourceStr == NULL) {
        setSimulatorLimit(err, "the simulated stone needs sourceStr (sourceOop as the "
                               "source is not supported)");
        return -1;
    }
    if (contextObject != OOP_ILLEGAL || symbolList != OOP_NIL) {
        setSimulatorLimit(err, "the simulated stone runs only anonymous doits "
                               "(contextObject OOP_ILLEGAL) in the user's symbol list "
                               "(symbolList OOP_NIL)");
        return -1;
    }
    if (maxResultSize < 0 || (result == NULL && maxResultSize > 0)) {
        setError(err, ERR_ARGUMENT_TYPE, 0, "maxResultSize must be >= 0, with a result buffer",
                 "argumentType");
        return -1;
    }
    if (beginCall(s, err) < 0)
        return -1;
    snprintf(oop, sizeof(oop), "%llu", (unsigned long long)sourceOop);
    fields[0] = sourceStr;
    sizes[0] = sourceSize < 0 ? strlen(sourceStr) : (size_t)sourceSize;
    fields[1] = oop;
    sizes[1] = strlen(oop);
    if (roundTrip(s, OP_EXECUTE, 2, fields, sizes, &reply, err) == 0) {
        size_t size = reply.count > 0 ? reply.size[0] : 0;
        if (size > (size_t)maxResultSize)
            size = (size_t)maxResultSize;
        if (size > 0)
            memcpy(result, reply.data[0], size);
        copied = (ssize_t)size;
        clearError(err);
    }
    if (reply.payload != NULL)
        freeReply(&reply);
    endCall(s);
    return copied;
}

/* One call whose reply, on success, is the result's bytes and then its OOP. */
static OopType oopCall(FakeSession *s, int opcode, size_t count, const void *const *fields,
                       const size_t *sizes, GciErrSType *err)
{
    Reply reply;
    OopType oop = OOP_ILLEGAL;
    if (beginCall(s, err) < 0)
        return OOP_ILLEGAL;
    if (roundTrip(s, opcode, count, fields, sizes, &reply, err) == 0) {
        oop = reply.count > 1 ? (OopType)parseNumber(reply.data[1], reply.size[1]) : OOP_NIL;
        clearError(err);
    }
    if (reply.payload != NULL)
        freeReply(&reply);
    endCall(s);
    return oop;
}

/*
 * Execute sourceStr with flags (GCI_PERFORM_FLAG_ENABLE_DEBUG and
 * GCI_PERFORM_FLAG_INTERPRETED: a run that can stop) and answer its result's
 * OOP; OOP_ILLEGAL with err filled on error, err->context the stopped
 * GsProcess when the run stopped.  Same limits as GciTsExecuteFetchBytes.
 */
OopType GciTsExecute_(GciSession sess, const char *sourceStr, ssize_t sourceSize,
                      OopType sourceOop, OopType contextObject, OopType symbolList,
                      int flags, unsigned short environmentId, GciErrSType *err)
{
    FakeSession *s = checkSession(sess, err);
    const void *fields[3];
    size_t sizes[3];
    char oop[24], flagText[24];
    if (s == NULL)
        return OOP_ILLEGAL;
    if (sourceStr == NULL || contextObject != OOP_ILLEGAL || symbolList != OOP_NIL
            || environmentId != 0) {
        setSimulatorLimit(err, "the simulated stone runs only sourceStr as an anonymous "
                               "doit (contextObject OOP_ILLEGAL) in the user's symbol list "
                               "(symbolList OOP_NIL), environment 0");
        return OOP_ILLEGAL;
    }
    snprintf(oop, sizeof(oop), "%llu", (unsigned long long)sourceOop);
    snprintf(flagText, sizeof(flagText), "%d", flags);
    fields[0] = sourceStr;
    sizes[0] = sourceSize < 0 ? strlen(sourceStr) : (size_t)sourceSize;
    fields[1] = oop;
    sizes[1] = strlen(oop);
    fields[2] = flagText;
    sizes[2] = strlen(flagText);
    return oopCall(s, OP_EXECUTE, 3, fields, sizes, err);
}

/*
 * Resume the GsProcess a run stopped in, with flags, and answer its result's
 * OOP when it finishes; OOP_ILLEGAL with err filled (context the process)
 * when it stops again.  Only replaceTopOfStack OOP_ILLEGAL (resume as it is)
 * and no continueWithError are modelled.
 */
OopType GciTsContinueWith(GciSession sess, OopType gsProcess, OopType replaceTopOfStack,
                          GciErrSType *continueWithError, int flags, GciErrSType *err)
{
    FakeSession *s = checkSession(sess, err);
    const void *fields[2];
    size_t sizes[2];
    char oop[24], flagText[24];
    if (s == NULL)
        return OOP_ILLEGAL;
    if (replaceTopOfStack != OOP_ILLEGAL || continueWithError != NULL) {
        setSimulatorLimit(err, "the simulated stone resumes a process only as it is "
                               "(replaceTopOfStack OOP_ILLEGAL, no continueWithError)");
        return OOP_ILLEGAL;
    }
    snprintf(oop, sizeof(oop), "%llu", (unsigned long long)gsProcess);
    snprintf(flagText, sizeof(flagText), "%d", flags);
    fields[0] = oop;
    sizes[0] = strlen(oop);
    fields[1] = flagText;
    sizes[1] = strlen(flagText);
    return oopCall(s, OP_CONTINUE, 2, fields, sizes, err);
}

/*
 * Interrupt the call in progress on sess, from any thread.  No call in
 * progress: no effect (the simulator also ignores a break between calls).
 * A break still running when a logout of its session starts is counted as a
 * misuse: the real logout frees what the break is using.
 */
BoolType GciTsBreak(GciSession sess, BoolType hard, GciErrSType *err)
{
    FakeSession *s = checkSession(sess, err);
    const void *fields[1];
    size_t sizes[1] = {1};
    int sent;
    BoolType answer = 1;
    if (s == NULL)
        return 0;
    __atomic_add_fetch(&s->breaksInFlight, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&s->loggedOut, __ATOMIC_SEQ_CST)) {
        misused();
        setError(err, ERR_SESSION_GONE, 1, "the GciSession is being logged out", "loggedOut");
        answer = 0;
    } else if (__atomic_load_n(&s->dead, __ATOMIC_SEQ_CST)) {
        setGoneError(err);
        answer = 0;
    } else if (__atomic_load_n(&s->inProgress, __ATOMIC_SEQ_CST)) {
        fields[0] = hard ? "1" : "0";
        breakDelay();
        pthread_mutex_lock(&s->writeLock);
        sent = s->fd >= 0 ? sendRequest(s->fd, OP_BREAK, 1, fields, sizes) : -1;
        pthread_mutex_unlock(&s->writeLock);
        if (sent < 0) {
            setGoneError(err);
            answer = 0;
        }
    }
    __atomic_sub_fetch(&s->breaksInFlight, 1, __ATOMIC_SEQ_CST);
    if (answer)
        clearError(err);
    return answer;
}

int GciTsCallInProgress(GciSession sess, GciErrSType *err)
{
    FakeSession *s = checkSession(sess, err);
    if (s == NULL)
        return -1;
    clearError(err);
    return __atomic_load_n(&s->inProgress, __ATOMIC_SEQ_CST) ? 1 : 0;
}

/* One request whose reply, on success, is a single number (an OOP). */
static int numberCall(FakeSession *s, int opcode, size_t count, const void *const *fields,
                      const size_t *sizes, unsigned long long *number, GciErrSType *err)
{
    Reply reply;
    int outcome;
    if (beginCall(s, err) < 0)
        return -1;
    outcome = roundTrip(s, opcode, count, fields, sizes, &reply, err);
    if (outcome == 0 && number != NULL)
        *number = reply.count > 0 ? parseNumber(reply.data[0], reply.size[0]) : 0;
    if (outcome >= 0)
        freeReply(&reply);
    endCall(s);
    return outcome;
}

/*
 * Discard a GsProcess a failed execution left suspended.  OOP_NIL (what
 * err->context holds when no process was left) is not a GsProcess, and is
 * refused here without a round trip; the simulator refuses any other OOP that
 * is not a process this session has suspended.
 */
BoolType GciTsClearStack(GciSession sess, OopType gsProcess, GciErrSType *err)
{
    FakeSession *s = checkSession(sess, err);
    const void *fields[1];
    size_t sizes[1];
    char oop[24];
    if (s == NULL)
        return 0;
    if (gsProcess == OOP_NIL || gsProcess == OOP_ILLEGAL || gsProcess == 0) {
        setError(err, ERR_ARGUMENT_TYPE, 0,
                 "a ArgumentTypeError occurred (error 2094), GciTsClearStack: the argument "
                 "is not a GsProcess (simulated stone; GemStone's wording is inferred)",
                 "argumentType");
        return 0;
    }
    snprintf(oop, sizeof(oop), "%llu", (unsigned long long)gsProcess);
    fields[0] = oop;
    sizes[0] = strlen(oop);
    if (numberCall(s, OP_CLEARSTACK, 1, fields, sizes, NULL, err) != 0)
        return 0;
    clearError(err);
    return 1;
}

/*
 * The OOP of what str is bound to in the session's symbol list (symbolList
 * OOP_NIL, the only list the simulated stone takes); OOP_ILLEGAL with err
 * filled when it is bound to nothing.
 */
OopType GciTsResolveSymbol(GciSession sess, const char *str, OopType symbolList,
                           GciErrSType *err)
{
    FakeSession *s = checkSession(sess, err);
    const void *fields[1];
    size_t sizes[1];
    unsigned long long oop = 0;
    if (s == NULL)
        return OOP_ILLEGAL;
    if (str == NULL) {
        setError(err, ERR_ARGUMENT_TYPE, 0, "GciTsResolveSymbol needs a name", "argumentType");
        return OOP_ILLEGAL;
    }
    if (symbolList != OOP_NIL) {
        setSimulatorLimit(err, "the simulated stone resolves only in the user's symbol list "
                               "(symbolList OOP_NIL)");
        return OOP_ILLEGAL;
    }
    fields[0] = str;
    sizes[0] = strlen(str);
    if (numberCall(s, OP_RESOLVE, 1, fields, sizes, &oop, err) != 0)
        return OOP_ILLEGAL;
    clearError(err);
    return (OopType)oop;
}
