/*
 * nullgcits.c -- the null stone: a BENCHMARK FIXTURE, NOT GEMSTONE and not
 * the simulated stone.
 *
 * Exports the GciTs functions gsmcpd binds, with GemStone/S 64 3.7's
 * prototypes, and does no work: a login always succeeds, and every
 * GciTsExecuteFetchBytes answers at once with one fixed, well-formed
 * envelope document.  With no stone behind it, a benchmark of the daemon
 * on this library measures the daemon alone: HTTP, dispatch, the ctypes
 * call, the hop to the session's thread and back, and the result's JSON.
 *
 * The document is the envelope's answer (see the daemon's _envelope.st):
 * one result dictionary holding every key the daemon reads from the
 * templates a benchmark runs (execute_code's text and total; the session
 * state read when a session opens and by view hygiene), none of which
 * uncommitted work could change.
 *
 * Only the bench builds it (bench/nullstone.py), into its own run
 * directory; nothing in the daemon knows of it.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

typedef uint64_t OopType;
typedef unsigned char ByteType;
typedef int BoolType;
typedef void *GciSession;

/* GemStone's error report; the null stone only ever clears it, so its
 * size is all it needs to know (2168 bytes in GemStone/S 64 3.7). */
typedef struct GciErrSType GciErrSType;
#define GCI_ERR_SIZE 2168

static const char VERSION[] =
    "3.7.4 build 0 (null stone: gsmcpd benchmark fixture, not GemStone)";

static const char ANSWER[] =
    "{\"result\":{\"text\":\"7\",\"total\":1,\"name\":null,\"session\":1,"
    "\"commitsBehind\":0,\"signalAbortBacklog\":null,\"backlog\":null,"
    "\"oldestPinnedBy\":null},\"needsCommit\":false}";

static void clearError(GciErrSType *err)
{
    if (err != NULL)
        memset(err, 0, GCI_ERR_SIZE);
}

unsigned int GciTsVersion(char *buf, size_t bufSize)
{
    if (buf != NULL && bufSize > 0)
        snprintf(buf, bufSize, "%s", VERSION);
    return 3;
}

GciSession GciTsLogin(const char *StoneNameNrs, const char *HostUserId, const char *HostPassword,
                      BoolType hostPwIsEncrypted, const char *GemServiceNrs,
                      const char *gemstoneUsername, const char *gemstonePassword,
                      unsigned int loginFlags, int haltOnErrNum, BoolType *executedSessionInit,
                      GciErrSType *err)
{
    (void)StoneNameNrs;
    (void)HostUserId;
    (void)HostPassword;
    (void)hostPwIsEncrypted;
    (void)GemServiceNrs;
    (void)gemstoneUsername;
    (void)gemstonePassword;
    (void)loginFlags;
    (void)haltOnErrNum;
    if (executedSessionInit != NULL)
        *executedSessionInit = 0;
    clearError(err);
    /* A byte of its own: a distinct handle for each login. */
    return malloc(1);
}

BoolType GciTsLogout(GciSession sess, GciErrSType *err)
{
    free(sess);
    clearError(err);
    return 1;
}

ssize_t GciTsExecuteFetchBytes(GciSession sess, const char *sourceStr, ssize_t sourceSize,
                               OopType sourceOop, OopType contextObject, OopType symbolList,
                               ByteType *result, ssize_t maxResultSize, GciErrSType *err)
{
    size_t size = sizeof(ANSWER) - 1;
    (void)sess;
    (void)sourceStr;
    (void)sourceSize;
    (void)sourceOop;
    (void)contextObject;
    (void)symbolList;
    if (maxResultSize >= 0 && size > (size_t)maxResultSize)
        size = (size_t)maxResultSize;
    memcpy(result, ANSWER, size);
    clearError(err);
    return (ssize_t)size;
}

/* The debugger's calls: the null stone never stops a run, so each
   answers nil at once. */
OopType GciTsExecute_(GciSession sess, const char *sourceStr, ssize_t sourceSize,
                      OopType sourceOop, OopType contextObject, OopType symbolList,
                      int flags, unsigned short environmentId, GciErrSType *err)
{
    (void)sess;
    (void)sourceStr;
    (void)sourceSize;
    (void)sourceOop;
    (void)contextObject;
    (void)symbolList;
    (void)flags;
    (void)environmentId;
    clearError(err);
    return (OopType)0x14;
}

OopType GciTsContinueWith(GciSession sess, OopType gsProcess, OopType replaceTopOfStack,
                          GciErrSType *continueWithError, int flags, GciErrSType *err)
{
    (void)sess;
    (void)gsProcess;
    (void)replaceTopOfStack;
    (void)continueWithError;
    (void)flags;
    clearError(err);
    return (OopType)0x14;
}

BoolType GciTsBreak(GciSession sess, BoolType hard, GciErrSType *err)
{
    (void)sess;
    (void)hard;
    clearError(err);
    return 1;
}

BoolType GciTsClearStack(GciSession sess, OopType gsProcess, GciErrSType *err)
{
    (void)sess;
    (void)gsProcess;
    clearError(err);
    return 1;
}

/* Any name resolves, to an OOP of the null stone's own. */
OopType GciTsResolveSymbol(GciSession sess, const char *str, OopType symbolList,
                           GciErrSType *err)
{
    (void)sess;
    (void)str;
    (void)symbolList;
    clearError(err);
    return (OopType)0x7E000001;
}
