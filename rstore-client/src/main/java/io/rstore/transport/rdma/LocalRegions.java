package io.rstore.transport.rdma;

import io.rstore.memory.LocalMemory;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A client's local memory (its arenas, and memory handed to mappings) registered on every
 * RDMA device the client uses, as a NIC requires of the memory its work requests touch:
 * once per region and device, when the memory is made or the device is first used, and
 * deregistered before the memory is freed. Memory past {@link RdmaDevice#PIECE} (a 1 GiB
 * mapping gets a 2 GiB arena) is registered in pieces, as DiSNI takes an int length. The
 * key a mapping carries is a small index; a device's lkey for an address in it is two
 * array reads ({@link Device#lkey}), so the data path looks nothing up.
 */
final class LocalRegions implements LocalMemory.Registrar {

    /** One device's registrations of the client's local memory: each key's memory in pieces of at most {@link RdmaDevice#PIECE}. */
    static final class Device {
        private final RdmaDevice device;
        private MemoryRegion[][] regions = new MemoryRegion[16][];
        private volatile long[] bases = new long[16];
        private volatile int[][] lkeys = new int[16][];

        private Device(RdmaDevice device) {
            this.device = device;
        }

        /** The lkey of the piece holding {@code address} in the memory registered under {@code key} (0, which no device hands out, when there is none). */
        int lkey(int key, long address) {
            int[][] table = lkeys;
            if (key < 0 || key >= table.length || table[key] == null) {
                return 0;
            }
            long piece = (address - bases[key]) / RdmaDevice.PIECE;
            return piece >= 0 && piece < table[key].length ? table[key][(int) piece] : 0;
        }

        /** How many of {@code length} bytes from {@code address} lie in one piece of key's memory: a work request names one lkey. */
        long withinPiece(int key, long address, long length) {
            long offset = address - bases[key];
            return Math.min(length, RdmaDevice.PIECE - Math.floorMod(offset, RdmaDevice.PIECE));
        }

        private void register(int key, MemorySegment memory) {
            if (key >= regions.length) {
                regions = Arrays.copyOf(regions, Math.max(2 * regions.length, key + 1));
            }
            long size = memory.byteSize();
            int pieces = (int) Math.max(1, (size + RdmaDevice.PIECE - 1) / RdmaDevice.PIECE);
            MemoryRegion[] made = new MemoryRegion[pieces];
            int[] keys = new int[pieces];
            try {
                for (int i = 0; i < pieces; i++) {
                    long from = i * RdmaDevice.PIECE;
                    made[i] = device.register(memory.asSlice(from, Math.min(RdmaDevice.PIECE, size - from)));
                    keys[i] = made[i].lkey();
                }
            } catch (RuntimeException e) {
                for (MemoryRegion r : made) {
                    if (r != null) {
                        device.deregister(r);
                    }
                }
                throw e;
            }
            regions[key] = made;
            long[] b = Arrays.copyOf(bases, regions.length);
            b[key] = memory.address();
            bases = b;
            int[][] table = Arrays.copyOf(lkeys, regions.length);
            table[key] = keys;
            lkeys = table;
        }

        private void deregister(int key) {
            if (key < regions.length && regions[key] != null) {
                int[][] table = lkeys.clone();
                table[key] = null;
                lkeys = table;
                for (MemoryRegion r : regions[key]) {
                    device.deregister(r);
                }
                regions[key] = null;
            }
        }
    }

    private final List<MemorySegment> memory = new ArrayList<>(); // by key; null: a free key
    private final List<Device> devices = new ArrayList<>();

    @Override
    public synchronized int register(MemorySegment segment) {
        int key = memory.indexOf(null);
        if (key < 0) {
            key = memory.size();
            memory.add(segment);
        } else {
            memory.set(key, segment);
        }
        try {
            for (Device device : devices) {
                device.register(key, segment);
            }
        } catch (RuntimeException e) {
            deregister(key);
            throw e;
        }
        return key;
    }

    @Override
    public synchronized void deregister(int key) {
        if (key < 0 || key >= memory.size() || memory.get(key) == null) {
            return;
        }
        for (Device device : devices) {
            device.deregister(key);
        }
        memory.set(key, null);
    }

    /**
     * {@code device}'s registrations, registering all local memory on it the first time
     * (after its first connection: DiSNI gives the protection domain with an endpoint).
     */
    synchronized Device on(RdmaDevice device) {
        for (Device known : devices) {
            if (known.device == device) {
                return known;
            }
        }
        Device added = new Device(device);
        for (int key = 0; key < memory.size(); key++) {
            if (memory.get(key) != null) {
                added.register(key, memory.get(key));
            }
        }
        devices.add(added);
        return added;
    }

    /** Before the devices close: nothing is registered any more. */
    synchronized void clear() {
        for (Device device : devices) {
            for (int key = 0; key < device.regions.length; key++) {
                try {
                    device.deregister(key);
                } catch (RuntimeException e) {
                    // the device goes anyway
                }
            }
        }
        devices.clear();
    }
}
