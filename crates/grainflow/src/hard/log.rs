//! The collision log of the hard-sphere method: one record per collision (time, bodies,
//! relative speed at the contact point), written by the hard method's `collision_log` option.

/// The other body of a collision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Partner {
    /// A particle, by id.
    Particle(u64),
    /// A wall, by index in the scene.
    Wall(usize),
}

/// One collision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CollisionRecord {
    /// Simulated time (s).
    pub time: f64,
    /// Id of the particle whose event it was.
    pub particle: u64,
    /// The other body.
    pub partner: Partner,
    /// Approach speed along the normal before the collision, −u·n̂ (m/s), with u the relative
    /// velocity of the contact points (000 eq 8 and the pair form above eq 4).
    pub normal_speed: f64,
    /// |u| before the collision (m/s).
    pub speed: f64,
}

/// Column names of `collisions.csv`.
pub const HEADER: &str = "time,particle,partner_particle,partner_wall,normal_speed,speed";

impl CollisionRecord {
    /// The record as a CSV row (an absent partner kind is −1).
    pub fn row(&self) -> String {
        let (pp, pw) = match self.partner {
            Partner::Particle(id) => (id as i64, -1),
            Partner::Wall(w) => (-1, w as i64),
        };
        format!(
            "{:e},{},{pp},{pw},{:e},{:e}",
            self.time, self.particle, self.normal_speed, self.speed
        )
    }
}
