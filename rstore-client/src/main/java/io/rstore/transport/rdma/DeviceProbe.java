package io.rstore.transport.rdma;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;

/**
 * What {@code rstore doctor} finds by trying, not by looking at files: opens the device
 * through DiSNI, listens on the device's address, connects a loopback queue pair, and
 * moves bytes one-sided and by SEND/RECV, each bounded.
 */
final class DeviceProbe {
    private static final long TIMEOUT_MS = 10_000;
    private static final int BYTES = 4096;

    private DeviceProbe() {
    }

    /** The finding: "opened DEVICE: ..." when everything worked, else what failed and why. */
    static String probe() {
        String why = DisniDevice.unavailable();
        if (why != null) {
            return "not tried: " + why;
        }
        String device = DisniDevice.devices().getFirst();
        InetAddress address = address(device);
        if (address == null) {
            return "cannot try " + device + ": it has no network interface with an IPv4 address (RoCE and iWARP devices need one)";
        }
        long start = System.nanoTime();
        try (RdmaDevice server = DisniDevice.open(RdmaDevice.Connections.DEFAULT);
             RdmaDevice client = DisniDevice.open(RdmaDevice.Connections.DEFAULT);
             Arena arena = Arena.ofConfined()) {
            RdmaDevice.Listener listener = server.listen(new InetSocketAddress(address, 0), () -> (request, response) -> response.put(request));
            MemorySegment remote = arena.allocate(BYTES, 4096);
            MemoryRegion region = server.register(remote);
            int[] done = {0, -1};
            try (QueuePair qp = client.connect(new InetSocketAddress(address, listener.port()), TIMEOUT_MS, (wrId, status) -> {
                done[0]++;
                done[1] = Math.max(done[1], status);
            })) {
                MemorySegment local = arena.allocate(BYTES, 4096);
                MemoryRegion mine = client.register(local);
                for (int i = 0; i < BYTES; i += 8) {
                    local.set(ValueLayout.JAVA_LONG, i, i * 3L + 1);
                }
                qp.postWrite(1, local.address(), mine.lkey(), region.address(), region.rkey(), BYTES);
                qp.postRead(2, local.address(), mine.lkey(), region.address(), region.rkey(), BYTES);
                long deadline = System.nanoTime() + TIMEOUT_MS * 1_000_000L;
                while (done[0] < 2 && System.nanoTime() < deadline) {
                    qp.poll();
                }
                if (done[0] < 2) {
                    return "opened " + device + ", but a loopback write and read did not complete within " + TIMEOUT_MS + " ms";
                }
                if (done[1] != QueuePair.SUCCESS || remote.get(ValueLayout.JAVA_LONG, BYTES - 8) != (BYTES - 8) * 3L + 1) {
                    return "opened " + device + ", but a loopback write and read failed (work completion status " + done[1] + ")";
                }
                ByteBuffer echo = qp.call(ByteBuffer.wrap(new byte[] {7, 7}), TIMEOUT_MS);
                if (echo.remaining() != 2) {
                    return "opened " + device + ", but a SEND/RECV call came back with " + echo.remaining() + " bytes";
                }
                client.deregister(mine);
            }
            return "opened " + device + ": a loopback queue pair on " + address.getHostAddress() + " wrote and read " + BYTES
                    + " bytes one-sided and answered a SEND, in " + (System.nanoTime() - start) / 1_000_000 + " ms";
        } catch (RuntimeException e) {
            return "cannot use " + device + ": " + e.getMessage();
        }
    }

    /** The IPv4 address of the network interface under {@code device}'s first port (RoCE: its netdev), if any. */
    static InetAddress address(String device) {
        try {
            Path ndev = Path.of("/sys/class/infiniband", device, "ports", "1", "gid_attrs", "ndevs", "0");
            List<String> names = Files.isReadable(ndev) ? List.of(Files.readString(ndev).trim()) : List.of();
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!names.isEmpty() && !names.contains(nic.getName()) || nic.isLoopback()) {
                    continue;
                }
                for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                    if (a instanceof Inet4Address) {
                        return a;
                    }
                }
            }
        } catch (IOException e) {
            // below
        }
        return null;
    }
}
