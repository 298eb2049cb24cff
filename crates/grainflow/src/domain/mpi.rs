//! The ranks' collective over MPI (the `mpi` feature, with rsmpi): one all-to-all of byte
//! messages, their lengths exchanged first.

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
}
