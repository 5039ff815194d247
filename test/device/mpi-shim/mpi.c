/* See mpi.h. Every collective is one exchange through rank 0 over a Unix socket: each rank sends its
 * block, rank 0 sends every block back to everyone, and each rank finishes the operation locally in
 * rank order (so all ranks compute the same result). Launched by run.sh: GDR_SHIM_RANK, GDR_SHIM_SIZE,
 * GDR_SHIM_SOCKET. */
#include "mpi.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

static int rank_, size_ = 1, *peers, up = -1;

static void die(const char *what) { fprintf(stderr, "mpi-shim rank %d: %s\n", rank_, what); exit(70); }

static void io(int fd, void *p, size_t n, int writing) {
  char *c = p;
  while (n) {
    ssize_t k = writing ? write(fd, c, n) : read(fd, c, n);
    if (k <= 0) die(writing ? "write failed" : "peer closed");
    c += k; n -= (size_t)k;
  }
}

static size_t typeSize(MPI_Datatype t) {
  switch (t) {
    case MPI_BYTE: return 1;
    case MPI_INT: return sizeof(int);
    case MPI_LONG: return sizeof(long);
    case MPI_LONG_LONG: return sizeof(long long);
    case MPI_INT64_T: return 8;
    case MPI_DOUBLE: return sizeof(double);
    default: return 0;
  }
}

/* all[r*n .. r*n+n) = rank r's `mine` on every rank. */
static void exchange(const void *mine, size_t n, char *all) {
  memcpy(all + (size_t)rank_ * n, mine, n);
  if (size_ == 1) return;
  if (rank_ != 0) {
    io(up, (void *)mine, n, 1);
    io(up, all, n * (size_t)size_, 0);
    return;
  }
  for (int r = 1; r < size_; r++) io(peers[r], all + (size_t)r * n, n, 0);
  for (int r = 1; r < size_; r++) io(peers[r], all, n * (size_t)size_, 1);
}

int MPI_Init(int *argc, char ***argv) {
  (void)argc; (void)argv;
  const char *r = getenv("GDR_SHIM_RANK"), *s = getenv("GDR_SHIM_SIZE"), *path = getenv("GDR_SHIM_SOCKET");
  if (!r || !s || !path) die("GDR_SHIM_RANK, GDR_SHIM_SIZE and GDR_SHIM_SOCKET must be set (run.sh)");
  rank_ = atoi(r); size_ = atoi(s);
  struct sockaddr_un a; memset(&a, 0, sizeof a); a.sun_family = AF_UNIX;
  strncpy(a.sun_path, path, sizeof a.sun_path - 1);
  if (rank_ == 0) {
    int l = socket(AF_UNIX, SOCK_STREAM, 0);
    unlink(path);
    if (bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, size_)) die("cannot listen");
    peers = calloc((size_t)size_, sizeof *peers);
    for (int i = 1; i < size_; i++) {
      int fd = accept(l, 0, 0), who;
      if (fd < 0) die("accept failed");
      io(fd, &who, sizeof who, 0);
      if (who <= 0 || who >= size_ || peers[who]) die("bad peer rank");
      peers[who] = fd;
    }
    close(l);
  } else {
    for (int tries = 0;; tries++) {
      up = socket(AF_UNIX, SOCK_STREAM, 0);
      if (connect(up, (struct sockaddr *)&a, sizeof a) == 0) break;
      close(up);
      if (tries > 600) die("rank 0 never listened");
      usleep(100000);
    }
    io(up, &rank_, sizeof rank_, 1);
  }
  return MPI_SUCCESS;
}

int MPI_Finalize(void) { MPI_Barrier(MPI_COMM_WORLD); return MPI_SUCCESS; }
int MPI_Comm_size(MPI_Comm c, int *s) { (void)c; *s = size_; return MPI_SUCCESS; }
int MPI_Comm_rank(MPI_Comm c, int *r) { (void)c; *r = rank_; return MPI_SUCCESS; }
int MPI_Comm_free(MPI_Comm *c) { (void)c; return MPI_SUCCESS; }

int MPI_Comm_split(MPI_Comm c, int color, int key, MPI_Comm *out) {
  (void)key;
  int *all = malloc(sizeof(int) * (size_t)size_);
  exchange(&color, sizeof color, (char *)all);
  for (int r = 0; r < size_; r++) if (all[r] != all[0]) die("only one colour is supported");
  free(all);
  *out = c;
  return MPI_SUCCESS;
}

int MPI_Barrier(MPI_Comm c) { (void)c; char b = 0, *all = malloc((size_t)size_); exchange(&b, 1, all); free(all); return MPI_SUCCESS; }

int MPI_Bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm c) {
  (void)c;
  size_t n = typeSize(t) * (size_t)count;
  char *all = malloc(n * (size_t)size_ + 1);
  exchange(buf, n, all);
  memcpy(buf, all + (size_t)root * n, n);
  free(all);
  return MPI_SUCCESS;
}

int MPI_Gather(const void *sbuf, int sc, MPI_Datatype st, void *rbuf, int rc, MPI_Datatype rt, int root, MPI_Comm c) {
  (void)c; (void)rc; (void)rt;
  size_t n = typeSize(st) * (size_t)sc;
  char *all = malloc(n * (size_t)size_ + 1);
  exchange(sbuf, n, all);
  if (rank_ == root) memcpy(rbuf, all, n * (size_t)size_);
  free(all);
  return MPI_SUCCESS;
}

int MPI_Allgather(const void *sbuf, int sc, MPI_Datatype st, void *rbuf, int rc, MPI_Datatype rt, MPI_Comm c) {
  (void)c;
  size_t n = sbuf == MPI_IN_PLACE ? typeSize(rt) * (size_t)rc : typeSize(st) * (size_t)sc;
  const char *mine = sbuf == MPI_IN_PLACE ? (char *)rbuf + (size_t)rank_ * n : sbuf;
  char *all = malloc(n * (size_t)size_ + 1);
  exchange(mine, n, all);
  memcpy(rbuf, all, n * (size_t)size_);
  free(all);
  return MPI_SUCCESS;
}

#define REDUCE(T)                                                        \
  for (int i = 0; i < count; i++) {                                      \
    T acc = ((T *)all)[i];                                               \
    for (int r = 1; r < size_; r++) {                                    \
      T v = ((T *)(all + (size_t)r * n))[i];                             \
      acc = op == MPI_SUM ? acc + v : op == MPI_MIN ? (v < acc ? v : acc) : (v > acc ? v : acc); \
    }                                                                    \
    ((T *)rbuf)[i] = acc;                                                \
  }

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  (void)c;
  size_t n = typeSize(t) * (size_t)count;
  if (!n || op < MPI_SUM || op > MPI_MAX) die("unsupported allreduce");
  char *all = malloc(n * (size_t)size_);
  exchange(sbuf == MPI_IN_PLACE ? rbuf : sbuf, n, all);
  switch (t) {
    case MPI_INT: REDUCE(int); break;
    case MPI_LONG: REDUCE(long); break;
    case MPI_LONG_LONG: REDUCE(long long); break;
    case MPI_INT64_T: REDUCE(long long); break;
    case MPI_DOUBLE: REDUCE(double); break;
    default: die("unsupported allreduce type");
  }
  free(all);
  return MPI_SUCCESS;
}
