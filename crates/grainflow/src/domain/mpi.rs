//! The ranks' collectives over MPI (the `mpi` feature, with rsmpi): an all-to-all of byte
//! messages, their lengths exchanged first; a swap of messages of known lengths between the
//! ranks that share grains, by non-blocking sends and receives; a flag's logical or and the
//! largest of numbers, each by one all-reduce.

use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Count;

use super::Transport;

/// This process's end of MPI's world communicator; MPI is finalised when it is dropped.
pub struct Mpi {
    world: SimpleCommunicator,
    _universe: mpi::environment::Universe,
}

impl Mpi {
    /// Initialises MPI; None when it was initialised already.
    pub fn init() -> Option<Mpi> {
        let universe = mpi::initialize()?;
        Some(Mpi {
            world: universe.world(),
            _universe: universe,
        })
    }
}

/// The offsets of messages of lengths `counts` laid end to end.
fn offsets(counts: &[Count]) -> Vec<Count> {
    counts
        .iter()
        .scan(0, |at, &c| {
            let start = *at;
            *at += c;
            Some(start)
        })
        .collect()
}

impl Transport for Mpi {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    fn exchange(&mut self, out: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        let n = self.size();
        let send_counts: Vec<Count> = out.iter().map(|m| m.len() as Count).collect();
        let mut recv_counts = vec![0 as Count; n];
        self.world
            .all_to_all_into(&send_counts[..], &mut recv_counts[..]);
        let (send_at, recv_at) = (offsets(&send_counts), offsets(&recv_counts));
        // One byte more than the messages on either side: MPI refuses an empty buffer, which
        // every rank has when no rank sends anything.
        let mut sent: Vec<u8> = out.concat();
        sent.push(0);
        let total: Count = recv_counts.iter().sum();
        let mut got = vec![0u8; total as usize + 1];
        {
            let send = Partition::new(&sent[..], &send_counts[..], &send_at[..]);
            let mut recv = PartitionMut::new(&mut got[..], &recv_counts[..], &recv_at[..]);
            self.world.all_to_all_varcount_into(&send, &mut recv);
        }
        recv_at
            .iter()
            .zip(&recv_counts)
            .map(|(&a, &c)| got[a as usize..(a + c) as usize].to_vec())
            .collect()
    }

    fn swap(&mut self, out: Vec<Vec<u8>>, expect: &[usize]) -> Vec<Vec<u8>> {
        let me = self.rank();
        let mut got: Vec<Vec<u8>> = expect.iter().map(|&n| vec![0u8; n]).collect();
        got[me].clone_from(&out[me]);
        let world = &self.world;
        mpi::request::scope(|scope| {
            let received: Vec<_> = (got.iter_mut().enumerate())
                .filter(|(r, m)| *r != me && !m.is_empty())
                .map(|(r, m)| {
                    let from = world.process_at_rank(r as mpi::Rank);
                    from.immediate_receive_into(scope, &mut m[..])
                })
                .collect();
            let sent: Vec<_> = (out.iter().enumerate())
                .filter(|(r, m)| *r != me && !m.is_empty())
                .map(|(r, m)| {
                    let to = world.process_at_rank(r as mpi::Rank);
                    to.immediate_send(scope, &m[..])
                })
                .collect();
            received.into_iter().for_each(|q| {
                q.wait();
            });
            sent.into_iter().for_each(|q| {
                q.wait();
            });
        });
        got
    }

    fn max(&mut self, x: &[f64]) -> Vec<f64> {
        // MPI's maximum need not pass NaN by, as the trait's does: it never meets one.
        let x: Vec<f64> = (x.iter())
            .map(|&v| if v.is_nan() { f64::NEG_INFINITY } else { v })
            .collect();
        let mut most = vec![0.0; x.len()];
        (self.world).all_reduce_into(&x[..], &mut most[..], SystemOperation::max());
        most
    }

    fn any(&mut self, flag: bool) -> bool {
        let mut some = 0u8;
        (self.world).all_reduce_into(&u8::from(flag), &mut some, SystemOperation::max());
        some == 1
    }
}
