//! A connection's stream, whose writes have a deadline for each reply as a whole rather than
//! for each write: a client that takes its replies a little at a time still has to take all of
//! a reply in time, or its connection ends and its thread is free again.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// A stream whose writes up to each `flush` must be done within one limit.
pub struct Timed {
    stream: TcpStream,
    limit: Duration,
    /// When the reply being written must be out; `None` between replies.
    deadline: Option<Instant>,
}

impl Timed {
    /// Wraps `stream`; each reply (the writes before a `flush`, and the flush) gets `limit`.
    pub fn new(stream: TcpStream, limit: Duration) -> Timed {
        Timed { stream, limit, deadline: None }
    }

    /// The socket, for its read timeout.
    pub fn get_ref(&self) -> &TcpStream {
        &self.stream
    }

    /// The socket.
    pub fn get_mut(&mut self) -> &mut TcpStream {
        &mut self.stream
    }

    /// Gives the next write at most what is left of the reply's time.
    fn arm(&mut self) -> io::Result<()> {
        let deadline = *self.deadline.get_or_insert_with(|| Instant::now() + self.limit);
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(io::ErrorKind::TimedOut, "the client took too long to read a reply"));
        }
        self.stream.set_write_timeout(Some(left))
    }
}

impl Read for Timed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.stream.read(buf)
    }
}

impl Write for Timed {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.arm()?;
        self.stream.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        // A flush with nothing written (a WebSocket's, at each poll) waits on nothing.
        if self.deadline.is_some() {
            self.arm()?;
        }
        self.stream.flush()?;
        self.deadline = None;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn a_reply_read_slowly_runs_out_of_time_though_every_write_makes_progress() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        let writer = std::thread::spawn(move || {
            let mut timed = Timed::new(server, Duration::from_millis(300));
            let started = Instant::now();
            // 64 MiB taken at 64 KiB every 20 ms would need 20 s.
            let result = timed.write_all(&vec![b'x'; 64 << 20]).and_then(|()| timed.flush());
            (result, started.elapsed())
        });
        // A client that keeps reading, slowly, until the server gives up on it.
        let mut chunk = vec![0u8; 64 << 10];
        let mut read = 0;
        while let Ok(n @ 1..) = client.read(&mut chunk) {
            read += n;
            std::thread::sleep(Duration::from_millis(20));
        }
        let (result, took) = writer.join().unwrap();
        assert_eq!(result.map_err(|e| e.kind()), Err(io::ErrorKind::TimedOut), "after {read} bytes");
        assert!(took < Duration::from_secs(10), "the reply's time, not a write's, ran out: {took:?}");
    }

    #[test]
    fn each_reply_has_the_whole_limit() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        let mut timed = Timed::new(server, Duration::from_millis(200));
        for _ in 0..3 {
            timed.write_all(b"a small reply").unwrap();
            timed.flush().unwrap();
            std::thread::sleep(Duration::from_millis(150));
        }
        let mut got = [0u8; 39];
        client.read_exact(&mut got).unwrap();
        assert_eq!(&got[..], b"a small replya small replya small reply".as_slice());
    }
}
