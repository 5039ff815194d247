/* A two-or-more-process stand-in for the handful of MPI calls nccl-tests (NVIDIA/nccl-tests 2.19.6,
 * src/common.cu and src/util.cu) makes when built with MPI=1: init, size/rank, barrier, bcast,
 * gather, allgather, allreduce (SUM/MIN/MAX on int, long, long long, int64, double), split with one
 * colour. The GPU machine lent to this project has no MPI and nothing can be installed there; NCCL
 * itself (its bootstrap, its transports, every byte measured) is the real library. Only used to record
 * fixtures (test/device/README.md); never shipped. */
#ifndef GDR_MPI_SHIM_H
#define GDR_MPI_SHIM_H
#ifdef __cplusplus
extern "C" {
#endif
typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
#define MPI_COMM_WORLD 1
#define MPI_IN_PLACE ((void *)1)
#define MPI_DATATYPE_NULL 0
#define MPI_BYTE 1
#define MPI_INT 2
#define MPI_LONG 3
#define MPI_LONG_LONG 4
#define MPI_INT64_T 5
#define MPI_DOUBLE 6
#define MPI_SUM 1
#define MPI_MIN 2
#define MPI_MAX 3
#define MPI_SUCCESS 0
int MPI_Init(int *argc, char ***argv);
int MPI_Finalize(void);
int MPI_Comm_size(MPI_Comm comm, int *size);
int MPI_Comm_rank(MPI_Comm comm, int *rank);
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
int MPI_Comm_free(MPI_Comm *comm);
int MPI_Barrier(MPI_Comm comm);
int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root,
               MPI_Comm comm);
int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm);
int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
#ifdef __cplusplus
}
#endif
#endif
