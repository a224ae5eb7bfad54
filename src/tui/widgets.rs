//! Small reusable pieces of the screen: sliders, gauges and chart bars.

pub mod bars;
pub mod gauge;
pub mod slider;
