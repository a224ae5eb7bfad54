//! Small reusable pieces of the screen: sliders and gauges.

pub mod gauge;
pub mod slider;
