package io.rstore.protocol.wire;

import io.rstore.ErrorCode;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;

/** The client side of a call protocol: a call becomes a request frame; its answer, the result or the RStoreException. */
final class Caller implements AutoCloseable {
    private final FrameTransport transport;
    private final AtomicLong correlations = new AtomicLong();

    Caller(FrameTransport transport) {
        this.transport = transport;
    }

    <T> T call(int type, Consumer<WireBuffer> body, Function<WireBuffer, T> result) {
        long correlation = correlations.incrementAndGet();
        WireBuffer out = Frames.start(Frames.REQUEST, type, correlation);
        body.accept(out);
        Frames.Header answer = Frames.read(transport.call(Frames.finish(out)));
        if (answer.correlation() != correlation || answer.type() != type) {
            throw WireBuffer.invalid("answer to call " + answer.type() + "#" + answer.correlation() + " arrived for call " + type + "#" + correlation);
        }
        WireBuffer in = answer.body();
        if (answer.kind() == Frames.ERROR) {
            ErrorCode code = ErrorCode.of(in.getInt());
            String message = in.getString();
            throw code.exception(message);
        }
        if (answer.kind() != Frames.RESPONSE) {
            throw WireBuffer.invalid("a request frame came back as an answer");
        }
        T value = result.apply(in);
        in.expectEnd();
        return value;
    }

    static Void none(WireBuffer in) {
        return null;
    }

    @Override
    public void close() {
        transport.close();
    }
}
