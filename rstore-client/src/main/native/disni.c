/*
 * RStore's implementation of the native methods DiSNI 2.1 declares
 * (com.ibm.disni.verbs.impl.NativeDispatcher and com.ibm.disni.util.NativeAffinity),
 * on librdmacm and libibverbs. Written from the Java signatures, the way DiSNI's Java
 * classes (as compiled in its jar) call them, and the verbs/rdma_cm man pages.
 *
 * The contract, as the Java side uses it:
 * - Objects are passed as their C pointers in a jlong ("objId"); a call that cannot make
 *   one throws java.io.IOException naming the verb and errno's message.
 * - Work requests, scatter/gather entries, completions and socket addresses are written
 *   and read by Java in native memory at the sizes and offsets this library reports
 *   (_getIbvSendWRSize, _getRemoteAddressOffset, ...), with `next` and `sg_list` already
 *   pointing into the same buffer, so they are handed to the verbs unchanged. The
 *   assertions below pin every offset Java writes at a fixed position.
 * - _getCmEvent returns the event type (rdma_cm_event_type's numbering, which DiSNI's
 *   RdmaCmEvent.EventType follows), stores the event's listen_id and id, and acknowledges
 *   the event at once (DiSNI's _ackCmEvent takes only the type, so nothing is left to
 *   acknowledge later); -1 when no event arrived within the timeout.
 * - connect and accept ask for the most outstanding RDMA reads the devices allow
 *   (RDMA_MAX_INIT_DEPTH / RDMA_MAX_RESP_RES, which librdmacm resolves against both
 *   ends): DiSNI's RdmaConnParam refuses to carry them.
 */
#define _GNU_SOURCE
#include <jni.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define JVERBS_VERSION 32 /* what DiSNI 2.1's NativeDispatcher requires */
#define MAX_SGE 4         /* scatter/gather entries per work request (DiSNI passes no count) */

/* the fields DiSNI's Java code writes at fixed offsets */
_Static_assert(offsetof(struct ibv_send_wr, wr_id) == 0, "send wr_id");
_Static_assert(offsetof(struct ibv_send_wr, next) == 8, "send next");
_Static_assert(offsetof(struct ibv_send_wr, sg_list) == 16, "send sg_list");
_Static_assert(offsetof(struct ibv_send_wr, num_sge) == 24, "send num_sge");
_Static_assert(offsetof(struct ibv_send_wr, opcode) == 28, "send opcode");
_Static_assert(offsetof(struct ibv_send_wr, send_flags) == 32, "send send_flags");
_Static_assert(offsetof(struct ibv_send_wr, imm_data) == 36, "send imm_data");
_Static_assert(offsetof(struct ibv_send_wr, wr.rdma.rkey) == offsetof(struct ibv_send_wr, wr.rdma.remote_addr) + 8, "rdma rkey");
_Static_assert(offsetof(struct ibv_recv_wr, wr_id) == 0 && offsetof(struct ibv_recv_wr, next) == 8
               && offsetof(struct ibv_recv_wr, sg_list) == 16 && offsetof(struct ibv_recv_wr, num_sge) == 24, "recv wr");
_Static_assert(offsetof(struct ibv_sge, addr) == 0 && offsetof(struct ibv_sge, length) == 8
               && offsetof(struct ibv_sge, lkey) == 12, "sge");
_Static_assert(offsetof(struct ibv_wc, wr_id) == 0 && offsetof(struct ibv_wc, status) == 8
               && offsetof(struct ibv_wc, opcode) == 12 && offsetof(struct ibv_wc, vendor_err) == 16
               && offsetof(struct ibv_wc, byte_len) == 20 && offsetof(struct ibv_wc, qp_num) == 28
               && offsetof(struct ibv_wc, src_qp) == 32 && offsetof(struct ibv_wc, wc_flags) == 36
               && offsetof(struct ibv_wc, pkey_index) == 40 && offsetof(struct ibv_wc, slid) == 42
               && offsetof(struct ibv_wc, sl) == 44 && offsetof(struct ibv_wc, dlid_path_bits) == 45, "wc");
_Static_assert(offsetof(struct sockaddr_in, sin_family) == 0 && offsetof(struct sockaddr_in, sin_port) == 2
               && offsetof(struct sockaddr_in, sin_addr) == 4, "sockaddr_in");

#define PTR(type, id) ((type *) (intptr_t) (id))
#define OBJ(p) ((jlong) (intptr_t) (p))
#define DISPATCHER(name) JNICALL Java_com_ibm_disni_verbs_impl_NativeDispatcher__1##name

/* Throws IOException("<verb> failed: <errno message>"); callers return right after. */
static void fail(JNIEnv *env, const char *verb, int err) {
    char message[256];
    snprintf(message, sizeof message, "%s failed: %s (errno %d)", verb, strerror(err), err);
    jclass io = (*env)->FindClass(env, "java/io/IOException");
    if (io != NULL) {
        (*env)->ThrowNew(env, io, message);
    }
}

/* A verb that returns 0 or -1 with errno (librdmacm), or 0 or an errno value (libibverbs). */
static void check(JNIEnv *env, const char *verb, int ret) {
    if (ret != 0) {
        fail(env, verb, ret > 0 ? ret : errno);
    }
}

/* Waits up to timeout ms (negative: forever) for fd to be readable: 1 ready, 0 not, -1 error. */
static int readable(int fd, int timeout) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int n;
    do {
        n = poll(&p, 1, timeout);
    } while (n < 0 && errno == EINTR);
    return n < 0 ? -1 : n > 0 && (p.revents & POLLIN) ? 1 : 0;
}

/* ---- rdma_cm ---- */

JNIEXPORT jlong DISPATCHER(createEventChannel)(JNIEnv *env, jobject self) {
    struct rdma_event_channel *channel = rdma_create_event_channel();
    if (channel == NULL) {
        fail(env, "rdma_create_event_channel", errno);
    }
    return OBJ(channel);
}

JNIEXPORT jlong DISPATCHER(createId)(JNIEnv *env, jobject self, jlong channel, jshort ps) {
    struct rdma_cm_id *id = NULL;
    if (rdma_create_id(PTR(struct rdma_event_channel, channel), &id, NULL, (enum rdma_port_space) (uint16_t) ps) != 0) {
        fail(env, "rdma_create_id", errno);
    }
    return OBJ(id);
}

JNIEXPORT jlong DISPATCHER(createQP)(JNIEnv *env, jobject self, jlong id, jlong pd, jlong sendCq, jlong recvCq,
                                     jint type, jint maxSendWr, jint maxRecvWr, jint maxInline) {
    struct rdma_cm_id *cm = PTR(struct rdma_cm_id, id);
    struct ibv_device_attr device;
    int sge = MAX_SGE;
    if (cm->verbs != NULL && ibv_query_device(cm->verbs, &device) == 0 && device.max_sge < sge) {
        sge = device.max_sge;
    }
    struct ibv_qp_init_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.send_cq = PTR(struct ibv_cq, sendCq);
    attr.recv_cq = PTR(struct ibv_cq, recvCq);
    attr.qp_type = (enum ibv_qp_type) type;
    attr.cap.max_send_wr = (uint32_t) maxSendWr;
    attr.cap.max_recv_wr = (uint32_t) maxRecvWr;
    attr.cap.max_send_sge = (uint32_t) sge;
    attr.cap.max_recv_sge = (uint32_t) sge;
    attr.cap.max_inline_data = (uint32_t) maxInline;
    if (rdma_create_qp(cm, PTR(struct ibv_pd, pd), &attr) != 0) {
        fail(env, "rdma_create_qp", errno);
        return -1;
    }
    return OBJ(cm->qp);
}

JNIEXPORT void DISPATCHER(bindAddr)(JNIEnv *env, jobject self, jlong id, jlong address) {
    check(env, "rdma_bind_addr", rdma_bind_addr(PTR(struct rdma_cm_id, id), PTR(struct sockaddr, address)));
}

JNIEXPORT void DISPATCHER(listen)(JNIEnv *env, jobject self, jlong id, jint backlog) {
    check(env, "rdma_listen", rdma_listen(PTR(struct rdma_cm_id, id), backlog));
}

JNIEXPORT void DISPATCHER(resolveAddr)(JNIEnv *env, jobject self, jlong id, jlong source, jlong destination, jint timeout) {
    check(env, "rdma_resolve_addr", rdma_resolve_addr(PTR(struct rdma_cm_id, id), PTR(struct sockaddr, source),
                                                      PTR(struct sockaddr, destination), timeout));
}

JNIEXPORT void DISPATCHER(resolveRoute)(JNIEnv *env, jobject self, jlong id, jint timeout) {
    check(env, "rdma_resolve_route", rdma_resolve_route(PTR(struct rdma_cm_id, id), timeout));
}

JNIEXPORT jint DISPATCHER(getCmEvent)(JNIEnv *env, jobject self, jlong channel, jlong listenIdOut, jlong idOut, jint timeout) {
    struct rdma_event_channel *ch = PTR(struct rdma_event_channel, channel);
    struct rdma_cm_event *event;
    if (readable(ch->fd, timeout) != 1 || rdma_get_cm_event(ch, &event) != 0) {
        return -1;
    }
    int type = event->event;
    *PTR(jlong, listenIdOut) = OBJ(event->listen_id);
    *PTR(jlong, idOut) = OBJ(event->id);
    rdma_ack_cm_event(event);
    return type;
}

/* The parameters DiSNI passes, and as many outstanding RDMA reads as both devices allow. */
static struct rdma_conn_param parameters(jint retry, jint rnrRetry) {
    struct rdma_conn_param p;
    memset(&p, 0, sizeof p);
    p.initiator_depth = RDMA_MAX_INIT_DEPTH;
    p.responder_resources = RDMA_MAX_RESP_RES;
    p.retry_count = (uint8_t) (retry > 7 ? 7 : retry);
    p.rnr_retry_count = (uint8_t) (rnrRetry > 7 ? 7 : rnrRetry);
    return p;
}

JNIEXPORT void DISPATCHER(connect)(JNIEnv *env, jobject self, jlong id, jint retry, jint rnrRetry, jlong privateData, jbyte privateLength) {
    struct rdma_conn_param p = parameters(retry, rnrRetry);
    p.private_data = PTR(void, privateData);
    p.private_data_len = privateData == 0 ? 0 : (uint8_t) privateLength;
    check(env, "rdma_connect", rdma_connect(PTR(struct rdma_cm_id, id), &p));
}

JNIEXPORT void DISPATCHER(accept)(JNIEnv *env, jobject self, jlong id, jint retry, jint rnrRetry) {
    struct rdma_conn_param p = parameters(retry, rnrRetry);
    check(env, "rdma_accept", rdma_accept(PTR(struct rdma_cm_id, id), &p));
}

JNIEXPORT jint DISPATCHER(ackCmEvent)(JNIEnv *env, jobject self, jint event) {
    return 0; /* acknowledged in _getCmEvent */
}

JNIEXPORT jint DISPATCHER(disconnect)(JNIEnv *env, jobject self, jlong id) {
    return rdma_disconnect(PTR(struct rdma_cm_id, id));
}

JNIEXPORT jint DISPATCHER(destroyEventChannel)(JNIEnv *env, jobject self, jlong channel) {
    rdma_destroy_event_channel(PTR(struct rdma_event_channel, channel));
    return 0;
}

JNIEXPORT jint DISPATCHER(destroyCmId)(JNIEnv *env, jobject self, jlong id) {
    return rdma_destroy_id(PTR(struct rdma_cm_id, id));
}

JNIEXPORT jint DISPATCHER(destroyQP)(JNIEnv *env, jobject self, jlong id) {
    rdma_destroy_qp(PTR(struct rdma_cm_id, id));
    return 0;
}

static jint copy_address(struct sockaddr *address, jlong out) {
    if (address == NULL || address->sa_family != AF_INET) {
        return -1; /* DiSNI's SockAddrIn speaks IPv4 only */
    }
    memcpy(PTR(void, out), address, sizeof(struct sockaddr_in));
    return 0;
}

JNIEXPORT jint DISPATCHER(getSrcAddr)(JNIEnv *env, jobject self, jlong id, jlong out) {
    return copy_address(rdma_get_local_addr(PTR(struct rdma_cm_id, id)), out);
}

JNIEXPORT jint DISPATCHER(getDstAddr)(JNIEnv *env, jobject self, jlong id, jlong out) {
    return copy_address(rdma_get_peer_addr(PTR(struct rdma_cm_id, id)), out);
}

JNIEXPORT jint DISPATCHER(destroyEp)(JNIEnv *env, jobject self, jlong id) {
    rdma_destroy_ep(PTR(struct rdma_cm_id, id));
    return 0;
}

/* ---- verbs ---- */

JNIEXPORT jlong DISPATCHER(allocPd)(JNIEnv *env, jobject self, jlong context) {
    struct ibv_pd *pd = ibv_alloc_pd(PTR(struct ibv_context, context));
    if (pd == NULL) {
        fail(env, "ibv_alloc_pd", errno);
    }
    return OBJ(pd);
}

JNIEXPORT jlong DISPATCHER(createCompChannel)(JNIEnv *env, jobject self, jlong context) {
    struct ibv_comp_channel *channel = ibv_create_comp_channel(PTR(struct ibv_context, context));
    if (channel == NULL) {
        fail(env, "ibv_create_comp_channel", errno);
    }
    return OBJ(channel);
}

JNIEXPORT jlong DISPATCHER(createCQ)(JNIEnv *env, jobject self, jlong context, jlong channel, jint entries, jint vector) {
    struct ibv_cq *cq = ibv_create_cq(PTR(struct ibv_context, context), entries, NULL, PTR(struct ibv_comp_channel, channel), vector);
    if (cq == NULL) {
        fail(env, "ibv_create_cq", errno);
    }
    return OBJ(cq);
}

/*
 * DiSNI 2.1's RdmaVerbsNat.modifyQP passes 0 for the attributes (its IbvQpAttr never
 * reaches native code), so there is nothing to change; rdma_cm moves the queue pair
 * through its states on connect and accept. A non-zero argument is refused.
 */
JNIEXPORT jint DISPATCHER(modifyQP)(JNIEnv *env, jobject self, jlong qp, jlong attributes) {
    if (attributes != 0) {
        fail(env, "ibv_modify_qp (attributes from Java are not supported)", EINVAL);
        return -1;
    }
    return 0;
}

JNIEXPORT jlong DISPATCHER(regMr)(JNIEnv *env, jobject self, jlong pd, jlong address, jint length, jint access,
                                  jlong lkeyOut, jlong rkeyOut, jlong handleOut) {
    struct ibv_mr *mr = ibv_reg_mr(PTR(struct ibv_pd, pd), PTR(void, address), (size_t) (uint32_t) length, access);
    if (mr == NULL) {
        fail(env, "ibv_reg_mr", errno);
        return -1;
    }
    *PTR(jint, lkeyOut) = (jint) mr->lkey;
    *PTR(jint, rkeyOut) = (jint) mr->rkey;
    *PTR(jint, handleOut) = (jint) mr->handle;
    return OBJ(mr);
}

/* The RC transport's on-demand-paging capabilities (IBV_ODP_SUPPORT_*), or -1 without ODP. */
JNIEXPORT jint DISPATCHER(queryOdpSupport)(JNIEnv *env, jobject self, jlong context) {
    struct ibv_device_attr_ex attr;
    memset(&attr, 0, sizeof attr);
    if (ibv_query_device_ex(PTR(struct ibv_context, context), NULL, &attr) != 0
        || !(attr.odp_caps.general_caps & IBV_ODP_SUPPORT)) {
        return -1;
    }
    return (jint) attr.odp_caps.per_transport_caps.rc_odp_caps;
}

JNIEXPORT jint DISPATCHER(expPrefetchMr)(JNIEnv *env, jobject self, jlong mr, jlong address, jint length) {
    struct ibv_mr *region = PTR(struct ibv_mr, mr);
    struct ibv_sge sge = {.addr = (uint64_t) address, .length = (uint32_t) length, .lkey = region->lkey};
    int ret = ibv_advise_mr(region->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
    if (ret != 0) {
        fail(env, "ibv_advise_mr", ret);
    }
    return ret;
}

JNIEXPORT void DISPATCHER(deregMr)(JNIEnv *env, jobject self, jlong mr) {
    check(env, "ibv_dereg_mr", ibv_dereg_mr(PTR(struct ibv_mr, mr)));
}

JNIEXPORT void DISPATCHER(postSend)(JNIEnv *env, jobject self, jlong qp, jlong wrs) {
    struct ibv_send_wr *bad;
    check(env, "ibv_post_send", ibv_post_send(PTR(struct ibv_qp, qp), PTR(struct ibv_send_wr, wrs), &bad));
}

JNIEXPORT void DISPATCHER(postRecv)(JNIEnv *env, jobject self, jlong qp, jlong wrs) {
    struct ibv_recv_wr *bad;
    check(env, "ibv_post_recv", ibv_post_recv(PTR(struct ibv_qp, qp), PTR(struct ibv_recv_wr, wrs), &bad));
}

/* 0 when a completion event arrived (its CQ is left to the caller to acknowledge), -1 on timeout. */
JNIEXPORT jint DISPATCHER(getCqEvent)(JNIEnv *env, jobject self, jlong channel, jint timeout) {
    struct ibv_comp_channel *ch = PTR(struct ibv_comp_channel, channel);
    struct ibv_cq *cq;
    void *context;
    int ready = readable(ch->fd, timeout);
    if (ready < 0) {
        fail(env, "poll on the completion channel", errno);
        return -1;
    }
    if (ready == 0) {
        return -1;
    }
    if (ibv_get_cq_event(ch, &cq, &context) != 0) {
        fail(env, "ibv_get_cq_event", errno);
        return -1;
    }
    return 0;
}

JNIEXPORT jint DISPATCHER(pollCQ)(JNIEnv *env, jobject self, jlong cq, jint entries, jlong wcs) {
    return ibv_poll_cq(PTR(struct ibv_cq, cq), entries, PTR(struct ibv_wc, wcs));
}

JNIEXPORT jint DISPATCHER(reqNotifyCQ)(JNIEnv *env, jobject self, jlong cq, jint solicitedOnly) {
    return ibv_req_notify_cq(PTR(struct ibv_cq, cq), solicitedOnly);
}

JNIEXPORT jint DISPATCHER(ackCqEvent)(JNIEnv *env, jobject self, jlong cq, jint events) {
    ibv_ack_cq_events(PTR(struct ibv_cq, cq), (unsigned int) events);
    return 0;
}

JNIEXPORT jint DISPATCHER(destroyCompChannel)(JNIEnv *env, jobject self, jlong channel) {
    return ibv_destroy_comp_channel(PTR(struct ibv_comp_channel, channel));
}

JNIEXPORT jint DISPATCHER(deallocPd)(JNIEnv *env, jobject self, jlong pd) {
    return ibv_dealloc_pd(PTR(struct ibv_pd, pd));
}

JNIEXPORT jint DISPATCHER(destroyCQ)(JNIEnv *env, jobject self, jlong cq) {
    return ibv_destroy_cq(PTR(struct ibv_cq, cq));
}

JNIEXPORT jlong DISPATCHER(getContext)(JNIEnv *env, jobject self, jlong id) {
    struct ibv_context *context = PTR(struct rdma_cm_id, id)->verbs;
    if (context == NULL) {
        fail(env, "rdma_cm_id has no device yet (bind or resolve an address first); getting its context", ENODEV);
        return -1;
    }
    return OBJ(context);
}

JNIEXPORT jint DISPATCHER(getQpNum)(JNIEnv *env, jobject self, jlong qp) {
    return (jint) PTR(struct ibv_qp, qp)->qp_num;
}

JNIEXPORT jint DISPATCHER(getContextFd)(JNIEnv *env, jobject self, jlong context) {
    return PTR(struct ibv_context, context)->cmd_fd;
}

JNIEXPORT jint DISPATCHER(getContextNumCompVectors)(JNIEnv *env, jobject self, jlong context) {
    return PTR(struct ibv_context, context)->num_comp_vectors;
}

JNIEXPORT jint DISPATCHER(getPdHandle)(JNIEnv *env, jobject self, jlong pd) {
    return (jint) PTR(struct ibv_pd, pd)->handle;
}

JNIEXPORT jint DISPATCHER(getSockAddrInSize)(JNIEnv *env, jobject self) {
    return sizeof(struct sockaddr_in);
}

JNIEXPORT jint DISPATCHER(getIbvRecvWRSize)(JNIEnv *env, jobject self) {
    return sizeof(struct ibv_recv_wr);
}

JNIEXPORT jint DISPATCHER(getIbvSendWRSize)(JNIEnv *env, jobject self) {
    return sizeof(struct ibv_send_wr);
}

JNIEXPORT jint DISPATCHER(getIbvSgeSize)(JNIEnv *env, jobject self) {
    return sizeof(struct ibv_sge);
}

JNIEXPORT jint DISPATCHER(getIbvWCSize)(JNIEnv *env, jobject self) {
    return sizeof(struct ibv_wc);
}

JNIEXPORT jint DISPATCHER(getRemoteAddressOffset)(JNIEnv *env, jobject self) {
    return offsetof(struct ibv_send_wr, wr.rdma.remote_addr);
}

JNIEXPORT jint DISPATCHER(getRKeyOffset)(JNIEnv *env, jobject self) {
    return offsetof(struct ibv_send_wr, wr.rdma.rkey);
}

JNIEXPORT jint DISPATCHER(getVersion)(JNIEnv *env, jobject self) {
    return JVERBS_VERSION;
}

/* ---- com.ibm.disni.util.NativeAffinity: the calling thread's CPU mask (CPUs 0-63) ---- */

JNIEXPORT void JNICALL Java_com_ibm_disni_util_NativeAffinity__1setAffinity(JNIEnv *env, jclass type, jlong mask) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu = 0; cpu < 64; cpu++) {
        if ((uint64_t) mask & (1ULL << cpu)) {
            CPU_SET(cpu, &set);
        }
    }
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        fail(env, "sched_setaffinity", errno);
    }
}

JNIEXPORT jlong JNICALL Java_com_ibm_disni_util_NativeAffinity__1getAffinity(JNIEnv *env, jclass type) {
    cpu_set_t set;
    uint64_t mask = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        return -1;
    }
    for (int cpu = 0; cpu < 64; cpu++) {
        if (CPU_ISSET(cpu, &set)) {
            mask |= 1ULL << cpu;
        }
    }
    return (jlong) mask;
}
