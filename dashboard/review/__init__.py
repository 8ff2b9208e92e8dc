"""Lead review and analytics: progress, pass rates, the rating review queue, the attempt inspector."""
